/**
 * The disk guard (docs/operations.md): watches the free space of the file system under DATA_DIR and says when it
 * falls below DISK_MIN_FREE_MB. While it is full, readiness fails its `disk` check and ingest refuses new data
 * (HTTP 507, MQTT 5 PUBACK and CONNACK 0x97, no PUBACK for MQTT 3.1.1), so a store never meets a full disk in the
 * middle of a write; what was accepted before is committed as usual. It is free again once the space is above the
 * limit plus a margin (no flapping around the limit): 10% of the limit, at least 64 MB, but at most 2% of the
 * volume (at least 1 MB), so a small volume resumes too. Ingest then resumes by itself.
 */
import { statfs } from 'node:fs/promises'

/** The space of the file system under a directory: bytes free for this process, and its size when known. */
export interface DiskSpace {
  free: number
  size?: number
}

/** The space under `dir`, or undefined when unknown (the guard then stays as it was). */
export type FreeSpaceReader = (dir: string) => Promise<DiskSpace | undefined>

export const statfsSpace: FreeSpaceReader = async (dir) => {
  try {
    const s = await statfs(dir)
    return { free: s.bavail * s.bsize, size: s.blocks * s.bsize }
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
  /** Free again above this many bytes (see `resumeBytes`). */
  private resumeAt: number

  constructor(private readonly o: DiskGuardOptions) {
    this.read = o.read ?? statfsSpace
    this.resumeAt = resumePoint(o.minFreeMb * MB, undefined)
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

  /** While full, the free bytes at which it is free again: the limit plus the margin. */
  get resumeBytes(): number {
    return this.resumeAt
  }

  /** Resolves once the disk is not full (at once when it is not). */
  waitForSpace(): Promise<void> {
    if (!this.isFull) return Promise.resolve()
    return new Promise((resolve) => this.waiters.push(resolve))
  }

  /** Reads the free space and updates the state. */
  async check(): Promise<void> {
    const space = await this.read(this.o.dir)
    if (space === undefined) return
    const free = space.free
    this.free = free
    this.resumeAt = resumePoint(this.limitBytes, space.size)
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

/**
 * The free bytes at which a full disk is free again: the limit plus 10% of it (at least 64 MB), at most 2% of the
 * volume's size (at least 1 MB) when known.
 */
export function resumePoint(limit: number, size: number | undefined): number {
  let margin = Math.max(64 * MB, limit * 0.1)
  if (size !== undefined && size > 0) margin = Math.min(margin, Math.max(MB, size * 0.02))
  return limit + margin
}
