import { createHash, createHmac, randomBytes, scrypt, timingSafeEqual } from 'node:crypto'
import { promisify } from 'node:util'

const scryptAsync = promisify(scrypt) as (
  pw: string,
  salt: Buffer,
  len: number,
  opts: object,
) => Promise<Buffer>
const SCRYPT = { N: 16384, r: 8, p: 1, maxmem: 64 * 1024 * 1024 }

/** scrypt with a random salt: `scrypt$N$r$p$salt$hash` (base64url). */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16)
  const hash = await scryptAsync(password, salt, 32, SCRYPT)
  return `scrypt$${SCRYPT.N}$${SCRYPT.r}$${SCRYPT.p}$${salt.toString('base64url')}$${hash.toString('base64url')}`
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$')
  if (scheme !== 'scrypt' || !salt || !hash) return false
  const expected = Buffer.from(hash, 'base64url')
  const got = await scryptAsync(password, Buffer.from(salt, 'base64url'), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: SCRYPT.maxmem,
  })
  return timingSafeEqual(got, expected)
}

/** Constant-time comparison of two secrets of any length. */
export function safeEqual(a: string, b: string): boolean {
  const ha = createHash('sha256').update(a).digest()
  const hb = createHash('sha256').update(b).digest()
  return timingSafeEqual(ha, hb) && a.length === b.length
}

/** SHA-256 of an application token, as stored (the token itself is shown once). */
export const hashToken = (token: string) => createHash('sha256').update(token).digest('hex')

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'

/** A random string of `length` characters from [A-Za-z0-9] (rejection sampling, no modulo bias). */
export function randomId(length: number, alphabet = ALNUM): string {
  let out = ''
  while (out.length < length) {
    for (const b of randomBytes(length * 2)) {
      if (b < 256 - (256 % alphabet.length)) out += alphabet[b % alphabet.length]
      if (out.length === length) break
    }
  }
  return out
}

/** A random 36-character credential (deviceID, deviceUsername, token when omitted). */
export const randomCredential = () => randomId(36)

export interface JwtClaims {
  sub: number
  tid: string
  role: string
  exp: number
  iat: number
  /** The token's id (logout revokes it). */
  jti?: string
  /** The user's token version when issued (a password or role change bumps it). */
  ver?: number
}

const b64 = (v: object) => Buffer.from(JSON.stringify(v)).toString('base64url')
const HEADER = b64({ alg: 'HS256', typ: 'JWT' })

/** HS256 JSON Web Token. */
export function signJwt(claims: JwtClaims, secret: string): string {
  const body = `${HEADER}.${b64(claims)}`
  return `${body}.${createHmac('sha256', secret).update(body).digest('base64url')}`
}

/** Verifies signature (constant time) and expiry; null when anything is wrong. */
export function verifyJwt(token: string, secret: string, now = Date.now()): JwtClaims | null {
  const parts = token.split('.')
  if (parts.length !== 3 || parts[0] !== HEADER) return null
  const sig = Buffer.from(
    createHmac('sha256', secret).update(`${parts[0]}.${parts[1]}`).digest('base64url'),
  )
  // the canonical text of an HMAC-SHA256 is 43 characters: compared in constant time as they are (no hashing
  // first, as safeEqual must for secrets of any length; another length is no signature)
  const given = Buffer.from(parts[2]!)
  if (given.length !== sig.length || !timingSafeEqual(sig, given)) return null
  try {
    const claims = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString()) as JwtClaims
    if (typeof claims.exp !== 'number' || claims.exp * 1000 <= now) return null
    if (typeof claims.sub !== 'number' || typeof claims.tid !== 'string') return null
    return claims
  } catch {
    return null
  }
}
