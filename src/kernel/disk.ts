/**
 * The disk guard (README "A full disk"): watches the free space of the file system under DATA_DIR and says when it
 * falls below DISK_MIN_FREE_MB. While it is full, readiness fails its `disk` check and ingest refuses new data
 * (HTTP 507, MQTT 5 PUBACK and CONNACK 0x97, no PUBACK for MQTT 3.1.1), so a store never meets a full disk in the
 * middle of a write; what was accepted before is committed as usual. It is free again once the space is above the
 * limit plus a margin (no flapping around the limit), and ingest resumes by itself.
 */
import { statfs } from 'node:fs/promises'

/** Bytes free for this process under `dir`, or undefined when unknown (the guard then stays as it was). */
export type FreeSpaceReader = (dir: string) => Promise<number | undefined>

export const statfsFree: FreeSpaceReader = async (dir) => {
  try {
    const s = await statfs(dir)
    return s.bavail * s.bsize
  } catch {
    return undefined
  }
}

const MB = 1024 * 1024

export interface DiskGuardOptions {
  dir: string
  /** The limit; 0 turns the guard off. */
  minFreeMb: number
  /** How free space is read (tests inject their own). */
  read?: FreeSpaceReader
  /** How often it is read, ms. */
  intervalMs?: number
  /** Hears each change: full (with the free bytes) or free again. */
  onChange?: (full: boolean, freeBytes: number) => void
}

export class DiskGuard {
  private isFull = false
  private free: number | undefined
  private timer: NodeJS.Timeout | undefined
  private waiters: Array<() => void> = []
  private readonly read: FreeSpaceReader
  /** Free again above this many bytes: the limit plus 10% of it, at least 64 MB. */
  private readonly resumeAt: number

  constructor(private readonly o: DiskGuardOptions) {
    this.read = o.read ?? statfsFree
    this.resumeAt = o.minFreeMb * MB + Math.max(64 * MB, o.minFreeMb * MB * 0.1)
  }

  /** Reads once now, then every intervalMs. */
  async start(): Promise<void> {
    if (this.o.minFreeMb <= 0) return
    await this.check()
    this.timer = setInterval(() => void this.check(), this.o.intervalMs ?? 2000)
    this.timer.unref()
  }

  /** True while the free space is below the limit (until it is back above the limit plus the margin). */
  get full(): boolean {
    return this.isFull
  }

  /** The last reading, bytes. */
  get freeBytes(): number | undefined {
    return this.free
  }

  get limitBytes(): number {
    return this.o.minFreeMb * MB
  }

  /** Resolves once the disk is not full (at once when it is not). */
  waitForSpace(): Promise<void> {
    if (!this.isFull) return Promise.resolve()
    return new Promise((resolve) => this.waiters.push(resolve))
  }

  /** Reads the free space and updates the state. */
  async check(): Promise<void> {
    const free = await this.read(this.o.dir)
    if (free === undefined) return
    this.free = free
    const full = this.isFull ? free < this.resumeAt : free < this.o.minFreeMb * MB
    if (full === this.isFull) return
    this.isFull = full
    this.o.onChange?.(full, free)
    if (!full) for (const w of this.waiters.splice(0)) w()
  }

  close(): void {
    clearInterval(this.timer)
    for (const w of this.waiters.splice(0)) w()
  }
}
