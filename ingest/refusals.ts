/**
 * Refused MQTT connections, throttled: per client id and address at most one connection-log row per log window
 * (later refusals are folded into that row's count), and flapping protection per address as EMQX does it (so
 * many refusals within a window ban the address for a while: refused at once, credentials unchecked, not logged).
 * Per-process state in memory, each map bounded (least recently used entries go first).
 */

/** The settings, in seconds; 0 turns the part off. */
export interface RefusalLimits {
  /** At most one log row per client id and address per this many seconds (MQTT_REFUSAL_LOG_SECONDS). */
  logSeconds: number
  /** This many refusals of one address within `flapWindowSeconds` ban it (MQTT_FLAP_REFUSALS). */
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
}

/** Entries each map keeps at most (about 10k addresses and 10k client id/address pairs). */
export const REFUSAL_ENTRIES = 10_000

export class RefusalGuard {
  /** `${clientId}\0${ip}` → msgTime of the row its refusals are folded into. */
  private rows = new Map<string, number>()
  /** address → times of its last `flapRefusals` refusals (a ring, oldest at `next`). */
  private recent = new Map<string, { times: number[]; next: number }>()
  /** address → end of its ban. */
  private bans = new Map<string, number>()

  constructor(
    private readonly limits: RefusalLimits,
    private readonly now: () => number = Date.now,
    private readonly cap = REFUSAL_ENTRIES,
  ) {}

  /** True while the address is banned (flapping); such a CONNECT is refused without a look at its credentials. */
  banned(ip: string | null): boolean {
    if (ip === null) return false
    const until = this.bans.get(ip)
    if (until === undefined) return false
    if (this.now() < until) return true
    this.bans.delete(ip)
    return false
  }

  /** Counts a refusal of `clientId` from `ip` (possibly banning the address) and says how to log it. */
  refused(clientId: string, ip: string | null): RefusalLog {
    const now = this.now()
    if (ip !== null) this.countFlap(ip, now)
    const windowMs = this.limits.logSeconds * 1000
    if (windowMs <= 0) return { kind: 'row', msgTime: now, at: now }
    const key = `${clientId}\0${ip ?? ''}`
    const since = this.rows.get(key)
    if (since !== undefined && now - since < windowMs) {
      touch(this.rows, key, since)
      return { kind: 'fold', msgTime: since, at: now }
    }
    remember(this.rows, key, now, this.cap)
    return { kind: 'row', msgTime: now, at: now }
  }

  private countFlap(ip: string, now: number) {
    const n = this.limits.flapRefusals
    const windowMs = this.limits.flapWindowSeconds * 1000
    if (n <= 0 || windowMs <= 0 || this.limits.flapBanSeconds <= 0) return
    let r = this.recent.get(ip)
    if (!r) r = { times: [], next: 0 }
    if (r.times.length < n) r.times.push(now)
    else {
      r.times[r.next] = now
      r.next = (r.next + 1) % n
    }
    // the oldest of the last n refusals is within the window: n refusals in it
    const oldest = r.times.length < n ? undefined : r.times[r.next]
    if (oldest !== undefined && now - oldest <= windowMs) {
      remember(this.bans, ip, now + this.limits.flapBanSeconds * 1000, this.cap)
      this.recent.delete(ip) // counting starts afresh after the ban
      return
    }
    remember(this.recent, ip, r, this.cap)
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
