/**
 * The Connection region of a device or gateway page: what `GET {path}/connection` answers (broker URLs, client id,
 * username, the token where the API gives it: never to a viewer, whose lines carry `<token>`) and the ready
 * `mosquitto_pub` / `mosquitto_sub` lines with their topics, each with a Copy button.
 */
import { useEffect, useState } from 'preact/hooks'
import { api } from '../api/client.ts'
import { words } from '../i18n.ts'
import { ErrorNote } from './paged-list.tsx'
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
    copy: (what: string) => `Copy ${what}`,
    copyShort: 'Copy',
    copied: 'Copied',
    copyFailed: 'Copy failed: select the text and copy it.',
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
    copy: (what: string) => `复制${what}`,
    copyShort: '复制',
    copied: '已复制',
    copyFailed: '复制失败：请选中文本后复制。',
  },
)

/** A value with a Copy button; the button's state ("Copied") is announced in a status element. */
function Copyable({ label, text }: { label: string; text: string }) {
  const [state, setState] = useState<'' | 'copied' | 'failed'>('')
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text)
      setState('copied')
    } catch {
      setState('failed')
    }
  }
  return (
    <div class="copyable">
      <code class="mono">{text}</code>
      <button type="button" class="secondary" aria-label={w().copy(label)} onClick={copy}>
        {w().copyShort}
      </button>
      <span role="status">
        {state === 'copied' ? w().copied : state === 'failed' ? w().copyFailed : ''}
      </span>
    </div>
  )
}

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
