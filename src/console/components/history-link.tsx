/**
 * A record page's title and, for admins, the link to the record's history in the audit log
 * (`/audit?resourceType=..&resourceIntID=..`).
 */
import { session } from '../api/client.ts'
import { words } from '../i18n.ts'

const w = words({ history: 'History' }, { history: '变更记录' })

type Props = { type: 'device' | 'product' | 'group'; id: number }

/** The page's heading (`title`), then its History link. */
export function RecordTitle(p: Props & { title: string }) {
  return (
    <>
      <h1>{p.title}</h1>
      <HistoryLink type={p.type} id={p.id} />
    </>
  )
}

export function HistoryLink(p: Props) {
  if (session.value?.role !== 'admin') return null
  return (
    <p class="history-link">
      <a href={`/audit?resourceType=${p.type}&resourceIntID=${p.id}`}>{w().history}</a>
    </p>
  )
}
