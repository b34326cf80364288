/** What the admin pages share: a page for admins only says so to anyone else instead of calling the API. */
import type { ComponentChildren } from 'preact'
import { session } from '../api/client.ts'
import { t } from '../i18n.ts'

/** `children` for an admin; for another role the page's heading and a note that the page is for admins. */
export function AdminOnly(p: { title: string; children: ComponentChildren }) {
  if (session.value?.role === 'admin') return <>{p.children}</>
  return (
    <section>
      <h1>{p.title}</h1>
      <p role="note">{t().forAdmins}</p>
    </section>
  )
}
