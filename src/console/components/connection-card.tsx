/**
 * The Connection region of a device or gateway page: what `GET {path}/connection` answers (broker URLs, client id,
 * username, the token where the API gives it: never to a viewer, whose lines carry `<token>`) and the ready
 * `mosquitto_pub` / `mosquitto_sub` lines with their topics, each with a Copy button.
 */
import { useEffect, useState } from 'preact/hooks'
import { api } from '../api/client.ts'
import { words } from '../i18n.ts'
import { ErrorNote } from './paged-list.tsx'
import { Copyable } from './copy-text.tsx'
import type { ConnectionWire } from '../api/wire.ts'

/** GET /devices/{id}/connection (the fields shown). */
type Connection = ConnectionWire

const w = words(
  {
    connection: 'Connection',
    brokers: 'Brokers',
    clientID: 'Client ID',
    username: 'Username',
    token: 'Token',
    uplinkTopic: 'Uplink topic',
    inboxTopic: 'Command topic',
    publish: 'Publish (mosquitto_pub)',
    subscribe: 'Receive commands (mosquitto_sub)',
  },
  {
    connection: '连接信息',
    brokers: '接入地址',
    clientID: '客户端 ID',
    username: '用户名',
    token: '令牌',
    uplinkTopic: '上报主题',
    inboxTopic: '指令主题',
    publish: '上报数据（mosquitto_pub）',
    subscribe: '接收指令（mosquitto_sub）',
  },
)

export function ConnectionCard({ path }: { path: string }) {
  const [conn, setConn] = useState<Connection | null>(null)
  const [error, setError] = useState<string | null>(null)
  useEffect(() => {
    let stale = false
    api<Connection>(`${path}/connection`).then(
      (c) => !stale && setConn(c),
      (e: Error) => !stale && setError(e.message),
    )
    return () => {
      stale = true
    }
  }, [path])

  const s = w()
  const brokers = conn ? Object.values(conn.brokers).filter((u): u is string => !!u) : []
  return (
    <section aria-labelledby="conn-h" class="card">
      <h2 id="conn-h">{s.connection}</h2>
      <ErrorNote error={error} />
      {conn && (
        <>
          <dl class="info">
            <dt>{s.brokers}</dt>
            <dd class="mono">{brokers.join('  ') || '—'}</dd>
            <dt>{s.clientID}</dt>
            <dd class="mono">{conn.clientID}</dd>
            <dt>{s.username}</dt>
            <dd class="mono">{conn.username}</dd>
            <dt>{s.token}</dt>
            <dd class="mono">
              {conn.password === null ? (
                conn.passwordHint
              ) : (
                <Copyable label={s.token} text={conn.password} />
              )}
            </dd>
            <dt>{s.uplinkTopic}</dt>
            <dd class="mono">{conn.uplinkTopic ?? '—'}</dd>
            <dt>{s.inboxTopic}</dt>
            <dd class="mono">{conn.inboxTopic}</dd>
          </dl>
          {conn.mosquittoPub && (
            <>
              <h3>{s.publish}</h3>
              <Copyable label="mosquitto_pub" text={conn.mosquittoPub} />
            </>
          )}
          {conn.mosquittoSub && (
            <>
              <h3>{s.subscribe}</h3>
              <Copyable label="mosquitto_sub" text={conn.mosquittoSub} />
            </>
          )}
        </>
      )}
    </section>
  )
}
