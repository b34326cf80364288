/**
 * Refused MQTT connections, throttled: per client id and address at most one connection-log row per log window
 * (later refusals are folded into that row's count), and flapping protection per client id as EMQX does it (so
 * many refusals of a known device's client id within a window ban that client id for a while: refused at once,
 * credentials unchecked, not logged). Refusals of client ids that name no device (a scanner, a random id) count
 * per address instead, and an address ban refuses only client ids that name no device: one misconfigured device
 * behind a NAT bans itself, never the fleet behind the same address.
 * Per-process state in memory, each map bounded (least recently used entries go first).
 */

/** The settings, in seconds; 0 turns the part off. */
export interface RefusalLimits {
  /** At most one log row per client id and address per this many seconds (MQTT_REFUSAL_LOG_SECONDS). */
  logSeconds: number
  /**
   * This many refusals of one known client id (or, for client ids naming no device, of one address) within
   * `flapWindowSeconds` ban it (MQTT_FLAP_REFUSALS).
   */
  flapRefusals: number
  flapWindowSeconds: number
  /** How long a ban lasts (MQTT_FLAP_BAN_SECONDS). */
  flapBanSeconds: number
}

/**
 * What to do with one refusal's log: a new row at `msgTime`, or one more count on the row written at `msgTime`;
 * `at` is the refusal's time.
 */
export interface RefusalLog {
  kind: 'row' | 'fold'
  msgTime: number
  at: number
  /** This refusal started a ban: of the client id (a known device), or of the address (an unknown client id). */
  banned?: 'client id' | 'address'
}

/** Entries each map keeps at most (about 10k addresses and 10k client id/address pairs). */
export const REFUSAL_ENTRIES = 10_000

export class RefusalGuard {
  /** `${clientId}\0${ip}` → msgTime of the row its refusals are folded into. */
  private rows = new Map<string, number>()
  /** `c\0<clientId>` or `a\0<ip>` → times of its last `flapRefusals` refusals (a ring, oldest at `next`). */
  private recent = new Map<string, { times: number[]; next: number }>()
  /** `c\0<clientId>` or `a\0<ip>` → end of its ban. */
  private bans = new Map<string, number>()

  constructor(
    private readonly limits: RefusalLimits,
    private readonly now: () => number = Date.now,
    private readonly cap = REFUSAL_ENTRIES,
  ) {}

  /**
   * True while a CONNECT of `clientId` from `ip` is banned (flapping): the client id is banned, or it names no
   * device (`known` false) and the address is banned. Such a CONNECT is refused without a look at its credentials.
   */
  banned(clientId: string, ip: string | null, known: boolean): boolean {
    if (this.bans.size === 0) return false
    return this.active(`c\0${clientId}`) || (!known && ip !== null && this.active(`a\0${ip}`))
  }

  private active(key: string): boolean {
    const until = this.bans.get(key)
    if (until === undefined) return false
    if (this.now() < until) return true
    this.bans.delete(key)
    return false
  }

  /**
   * Counts a refusal of `clientId` from `ip` (`known`: the client id names a device) against the client id, or the
   * address when it names none, possibly banning it, and says how to log it.
   */
  refused(clientId: string, ip: string | null, known: boolean): RefusalLog {
    const now = this.now()
    let banned: RefusalLog['banned']
    if (known) banned = this.countFlap(`c\0${clientId}`, now) ? 'client id' : undefined
    else if (ip !== null) banned = this.countFlap(`a\0${ip}`, now) ? 'address' : undefined
    const log = this.logRow(`${clientId}\0${ip ?? ''}`, now)
    return banned ? { ...log, banned } : log
  }

  private logRow(key: string, now: number): RefusalLog {
    const windowMs = this.limits.logSeconds * 1000
    if (windowMs <= 0) return { kind: 'row', msgTime: now, at: now }
    const since = this.rows.get(key)
    if (since !== undefined && now - since < windowMs) {
      touch(this.rows, key, since)
      return { kind: 'fold', msgTime: since, at: now }
    }
    remember(this.rows, key, now, this.cap)
    return { kind: 'row', msgTime: now, at: now }
  }

  /** Counts a refusal of `key`; true when it starts a ban. */
  private countFlap(key: string, now: number): boolean {
    const n = this.limits.flapRefusals
    const windowMs = this.limits.flapWindowSeconds * 1000
    if (n <= 0 || windowMs <= 0 || this.limits.flapBanSeconds <= 0) return false
    let r = this.recent.get(key)
    if (!r) r = { times: [], next: 0 }
    if (r.times.length < n) r.times.push(now)
    else {
      r.times[r.next] = now
      r.next = (r.next + 1) % n
    }
    // the oldest of the last n refusals is within the window: n refusals in it
    const oldest = r.times.length < n ? undefined : r.times[r.next]
    if (oldest !== undefined && now - oldest <= windowMs) {
      remember(this.bans, key, now + this.limits.flapBanSeconds * 1000, this.cap)
      this.recent.delete(key) // counting starts afresh after the ban
      return true
    }
    remember(this.recent, key, r, this.cap)
    return false
  }
}

/** Sets `key` as the most recent entry, dropping the least recent ones beyond `cap`. */
function remember<V>(map: Map<string, V>, key: string, value: V, cap: number) {
  map.delete(key)
  map.set(key, value)
  while (map.size > cap) {
    const oldest = map.keys().next()
    if (oldest.done) break
    map.delete(oldest.value)
  }
}

function touch<V>(map: Map<string, V>, key: string, value: V) {
  map.delete(key)
  map.set(key, value)
}
