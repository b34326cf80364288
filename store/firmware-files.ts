/**
 * The bytes of firmware packages, files of DATA_DIR/firmware. An upload streams into a temporary file
 * (`.<random>.partial`), its SHA-256 and size computed as it passes, never held whole in memory; `keep` syncs it and
 * renames it to its final name, after which its row may be written. At start-up `sweep` removes what a crash left:
 * temporary files, and final files no row names, untouched for SWEEP_AFTER_MS (another node sharing the directory may
 * be writing one now).
 */
import { createHash, randomBytes } from 'node:crypto'
import {
  createReadStream,
  createWriteStream,
  mkdirSync,
  readdirSync,
  rmSync,
  statSync,
} from 'node:fs'
import { open, rename, rm, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { Transform, type Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { collectYoungGeneration, COLLECT_EVERY_BYTES } from '../src/kernel/memory.ts'

/** A package's bytes received into a temporary file. */
export interface ReceivedFile {
  /** The temporary file's path. */
  temp: string
  size: number
  /** Lower-case hex. */
  sha256: string
}

/** Thrown when a stream passes the size limit (the temporary file is gone by then). */
export class FileTooLarge extends Error {}

const PARTIAL = /^\..*\.partial$/
/** A file left this long without a change (and without a row, or temporary) is a crash's. */
export const SWEEP_AFTER_MS = 10 * 60_000

/** Where packages are kept: FIRMWARE_DIR, else DATA_DIR/firmware. */
export const firmwareDir = (config: { DATA_DIR: string; FIRMWARE_DIR?: string }) =>
  config.FIRMWARE_DIR ?? join(config.DATA_DIR, 'firmware')

export class FirmwareFiles {
  /** @param dir where packages are kept (firmwareDir). */
  constructor(readonly dir: string) {
    mkdirSync(this.dir, { recursive: true })
  }

  /**
   * Streams `source` into a new temporary file, at most `maxBytes`; its size and SHA-256. The memory it holds stays
   * bounded: the chunks written are collected every 8 MiB (src/kernel/memory.ts).
   */
  async receive(source: Readable, maxBytes: number): Promise<ReceivedFile> {
    const temp = join(this.dir, `.${randomBytes(12).toString('hex')}.partial`)
    const hash = createHash('sha256')
    let size = 0
    const count = new Transform({
      transform(chunk: Buffer, _enc, done) {
        const before = size
        size += chunk.length
        if (size > maxBytes) return done(new FileTooLarge(`more than ${maxBytes} bytes`))
        // the chunks already written are dead: collected now, not once 64 MiB of them piled up
        if (Math.floor(size / COLLECT_EVERY_BYTES) > Math.floor(before / COLLECT_EVERY_BYTES))
          collectYoungGeneration()
        hash.update(chunk)
        done(null, chunk)
      },
    })
    try {
      await pipeline(source, count, createWriteStream(temp, { flags: 'wx' }))
    } catch (e) {
      await rm(temp, { force: true })
      throw e
    }
    return { temp, size, sha256: hash.digest('hex') }
  }

  /** Syncs a received file and gives it its final name (`<name>.bin`); answers that file name. */
  async keep(received: ReceivedFile, name: string): Promise<string> {
    const file = `${name}.bin`
    const handle = await open(received.temp, 'r')
    try {
      await handle.sync()
    } finally {
      await handle.close()
    }
    await rename(received.temp, join(this.dir, file))
    const dir = await open(this.dir, 'r')
    try {
      await dir.sync()
    } finally {
      await dir.close()
    }
    return file
  }

  /** Removes a received file that will not be kept. */
  discard(received: ReceivedFile): Promise<void> {
    return rm(received.temp, { force: true })
  }

  /** Removes kept files (their rows are gone). */
  async remove(files: readonly string[]): Promise<void> {
    for (const f of files) await rm(join(this.dir, f), { force: true })
  }

  /** A kept file's size, or undefined when it is missing. */
  async size(file: string): Promise<number | undefined> {
    return stat(join(this.dir, file)).then(
      (s) => s.size,
      () => undefined,
    )
  }

  /** The path of a kept file. */
  path(file: string): string {
    return join(this.dir, file)
  }

  /** The bytes `start` to `end` (inclusive) of a kept file. */
  read(file: string, start: number, end: number): Readable {
    return createReadStream(join(this.dir, file), { start, end })
  }

  /** The bytes `start` to `end` (inclusive) of a kept file, read whole (a chunk: a few KiB). */
  async readBytes(file: string, start: number, end: number): Promise<Buffer> {
    const handle = await open(join(this.dir, file), 'r')
    try {
      const out = Buffer.alloc(end - start + 1)
      const { bytesRead } = await handle.read(out, 0, out.length, start)
      return out.subarray(0, bytesRead)
    } finally {
      await handle.close()
    }
  }

  /**
   * Removes temporary files and the kept files not in `keep` (what a crash left) that nothing changed for
   * SWEEP_AFTER_MS before `now`; answers the names removed.
   */
  sweep(keep: readonly string[], now: number): string[] {
    const kept = new Set(keep)
    const removed: string[] = []
    for (const name of readdirSync(this.dir)) {
      if (!PARTIAL.test(name) && kept.has(name)) continue
      const path = join(this.dir, name)
      if (now - statSync(path).mtimeMs < SWEEP_AFTER_MS) continue
      rmSync(path, { force: true, recursive: true })
      removed.push(name)
    }
    return removed
  }
}
