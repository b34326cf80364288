import { createServer } from 'node:net'

/** A TCP port on 127.0.0.1 free right now (listened on and closed; another process may still take it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer()
    s.once('error', reject)
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number }
      s.close(() => resolve(port))
    })
  })
}

/** The environment of a service run as a process of its own: PATH and HOME only, HTTP on `port`, MQTT on free ports. */
export const processEnv = (port: number) => ({
  PATH: process.env.PATH,
  HOME: process.env.HOME,
  PORT: String(port),
  HOST: '127.0.0.1',
  MQTT_PORT: '0',
  MQTT_WS_PORT: '0',
})
