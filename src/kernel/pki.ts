/**
 * Certificates for devices that authenticate with a client certificate (authType 2).
 * Each tenant has its own certificate authority; client certificates are signed by it.
 * Keys are ECDSA P-256 made with WebCrypto; certificates and keys travel as PEM text
 * (certificate: `CERTIFICATE`, key: PKCS#8 `PRIVATE KEY`).
 */
import { randomBytes, webcrypto } from 'node:crypto'

type CryptoKey = webcrypto.CryptoKey
const { subtle } = webcrypto

type X509 = typeof import('@peculiar/x509')
let loaded: Promise<X509> | undefined
/**
 * @peculiar/x509 and its ASN.1 schemas, loaded by the first certificate made rather than at start (a sixth of the
 * main thread's start-up module loading, for what only certificate devices and MQTTS use).
 */
const lib = () =>
  (loaded ??= import('@peculiar/x509').then((x509) => {
    x509.cryptoProvider.set(webcrypto)
    return x509
  }))

const ALG = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const
const DAY = 86_400_000
/** Lifetimes written out as data: the CA lives 10 years, a client certificate about 2. */
export const CA_DAYS = 3652
export const CLIENT_DAYS = 730
/** Clock skew allowance: certificates are valid from a minute before they are made. */
const BACKDATE = 60_000

/** A certificate and its private key, both PEM. */
export interface CertAndKey {
  cert: string
  key: string
}

/** The common name of a tenant's CA. */
export const caCommonName = (tenantID: string) => `DeviceCloud CA ${tenantID}`

/** A random positive serial number of 16 bytes, as hex. */
function serialNumber(): string {
  const b = randomBytes(16)
  b[0] = (b[0]! & 0x7f) | 0x01
  return b.toString('hex')
}

async function newKeys(): Promise<webcrypto.CryptoKeyPair> {
  return subtle.generateKey(ALG, true, ['sign', 'verify'])
}

async function keyPem(x509: X509, key: CryptoKey): Promise<string> {
  const der = await subtle.exportKey('pkcs8', key)
  return x509.PemConverter.encode(der, 'PRIVATE KEY')
}

/**
 * A name with one CN, a UTF8String. The object form keeps `cn` literal: a plain string value (or DN text)
 * would be read for quotes, backslash escapes and `#hex`, so names such as `a,"b"` would not survive.
 */
const nameOf = (x509: X509, cn: string) => new x509.Name([{ CN: [{ utf8String: cn }] }])

/**
 * A self-signed CA for one tenant: CN `DeviceCloud CA <tenantID>`, basicConstraints CA (critical),
 * keyUsage keyCertSign and cRLSign (critical), valid 10 years.
 */
export async function createCa(tenantID: string, now = Date.now()): Promise<CertAndKey> {
  const x509 = await lib()
  const keys = await newKeys()
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serialNumber(),
    name: nameOf(x509, caCommonName(tenantID)),
    notBefore: new Date(now - BACKDATE),
    notAfter: new Date(now + CA_DAYS * DAY),
    signingAlgorithm: ALG,
    keys,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(
        x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign,
        true,
      ),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  })
  return { cert: cert.toString('pem'), key: await keyPem(x509, keys.privateKey) }
}

async function importCaKey(x509: X509, pem: string): Promise<CryptoKey> {
  const der = x509.PemConverter.decodeFirst(pem)
  return subtle.importKey('pkcs8', der, { name: ALG.name, namedCurve: ALG.namedCurve }, false, [
    'sign',
  ])
}

/**
 * A new key pair and a client certificate for it, signed by `ca`: subject CN `cn`, keyUsage digitalSignature
 * (critical), extKeyUsage clientAuth, not a CA, a random serial, valid about 2 years.
 */
export async function issueClientCert(
  ca: CertAndKey,
  cn: string,
  now = Date.now(),
): Promise<CertAndKey> {
  const x509 = await lib()
  const caCert = new x509.X509Certificate(ca.cert)
  const keys = await newKeys()
  const notAfter = Math.min(now + CLIENT_DAYS * DAY, caCert.notAfter.getTime())
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serialNumber(),
    subject: nameOf(x509, cn),
    issuer: caCert.subjectName,
    notBefore: new Date(now - BACKDATE),
    notAfter: new Date(notAfter),
    signingAlgorithm: ALG,
    publicKey: keys.publicKey,
    signingKey: await importCaKey(x509, ca.key),
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.clientAuth]),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
      await x509.AuthorityKeyIdentifierExtension.create(caCert.publicKey),
    ],
  })
  return { cert: cert.toString('pem'), key: await keyPem(x509, keys.privateKey) }
}
