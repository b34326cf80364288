/**
 * The MQTT load generator written in Go (bench/mqttload: eclipse/paho.mqtt.golang clients), so that a figure can be
 * measured by a load that is not JavaScript. `go build` makes it into bench/mqttload/.bin/ (ignored by git), named by
 * a hash of its sources (go.mod, go.sum, *.go): a binary is built once and reused until they change. The first build
 * fetches paho through the Go module proxy and takes ~1 min on 2 cores; later ones come from Go's build cache.
 * A build writes a temp file and renames it, so two processes building at once each end with a whole binary.
 */
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import {
  accessSync,
  constants,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
} from 'node:fs'
import { delimiter, join } from 'node:path'

const SOURCE = join(import.meta.dirname, '../mqttload')
const BIN = join(SOURCE, '.bin')
/** Where the Go tarball puts `go` when it is not on PATH (`.ci/run` adds it too). */
const GO_HOME_BIN = '/usr/local/go/bin'

/** Why the Go generator cannot be had: no `go`, or a build that failed (with its output). */
export class GoLoadUnavailable extends Error {}

/** The `go` command: on PATH, else in /usr/local/go/bin; undefined when neither has it. */
export function findGo(): string | undefined {
  const dirs = [...(process.env.PATH ?? '').split(delimiter).filter(Boolean), GO_HOME_BIN]
  for (const dir of dirs) {
    const go = join(dir, 'go')
    try {
      accessSync(go, constants.X_OK)
      return go
    } catch {
      // not here
    }
  }
  return undefined
}

/** The hash of the generator's sources that names its binary. */
function sourceHash(): string {
  const h = createHash('sha256')
  const files = readdirSync(SOURCE)
    .filter((f) => f === 'go.mod' || f === 'go.sum' || f.endsWith('.go'))
    .sort()
  for (const f of files)
    h.update(f)
      .update('\0')
      .update(readFileSync(join(SOURCE, f)))
  return h.digest('hex').slice(0, 12)
}

/**
 * The path of the built generator, built now when its sources changed since the last build (the binaries of
 * older sources are removed). Throws GoLoadUnavailable when there is no `go` or the build fails.
 */
export function goLoadBinary(): string {
  const name = `mqttload-${sourceHash()}`
  const bin = join(BIN, name)
  try {
    accessSync(bin, constants.X_OK)
    return bin
  } catch {
    // not built yet
  }
  const go = findGo()
  if (!go)
    throw new GoLoadUnavailable(
      `the Go load generator needs the Go toolchain: no 'go' on PATH nor in ${GO_HOME_BIN} (https://go.dev/dl)`,
    )
  mkdirSync(BIN, { recursive: true })
  const tmp = `${bin}.${process.pid}.tmp`
  const r = spawnSync(go, ['build', '-buildvcs=false', '-trimpath', '-o', tmp, '.'], {
    cwd: SOURCE,
    encoding: 'utf8',
  })
  if (r.status !== 0) {
    rmSync(tmp, { force: true })
    throw new GoLoadUnavailable(
      `go build of bench/mqttload failed (${r.error?.message ?? `exit ${r.status}`}): ${r.stderr}`,
    )
  }
  renameSync(tmp, bin)
  for (const old of readdirSync(BIN))
    if (old !== name && !old.endsWith('.tmp')) rmSync(join(BIN, old), { force: true })
  return bin
}
