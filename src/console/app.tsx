/** The shell: the sign-in page when signed out, else the navigation, the language control and the routed page. */
import { session, signOut } from './api.ts'
import { lang, setLang, t, type Lang } from './i18n.ts'
import { onLinkClick, path } from './router.ts'
import { lazyPage } from './lazy.tsx'
import { SignIn } from './pages/sign-in.tsx'

// every page but sign-in is its own chunk, fetched when first shown
const OverviewPage = lazyPage(() => import('./pages/overview.tsx').then((m) => m.OverviewPage))
const DevicesPage = lazyPage(() => import('./pages/devices.tsx').then((m) => m.DevicesPage))
const DevicePage = lazyPage(() => import('./pages/device.tsx').then((m) => m.DevicePage))
const GatewayPage = lazyPage(() => import('./pages/gateway.tsx').then((m) => m.GatewayPage))
const AlertsPage = lazyPage(() => import('./pages/alerts.tsx').then((m) => m.AlertsPage))

type Key =
  | 'overview'
  | 'devices'
  | 'products'
  | 'groups'
  | 'alerts'
  | 'alertRules'
  | 'webhooks'
  | 'schedules'

const NAV: Array<[Key, string]> = [
  ['overview', '/'],
  ['devices', '/devices'],
  ['products', '/products'],
  ['groups', '/groups'],
  ['alerts', '/alerts'],
  ['alertRules', '/alert_rules'],
  ['webhooks', '/webhooks'],
  ['schedules', '/schedules'],
]

function LanguageControl() {
  return (
    <label class="lang">
      {t().language}{' '}
      <select
        value={lang.value}
        onChange={(e) => setLang((e.currentTarget as HTMLSelectElement).value as Lang)}
      >
        <option value="en">English</option>
        <option value="zh">中文</option>
      </select>
    </label>
  )
}

function Page() {
  const p = path.value
  const device = /^\/devices\/(\d{1,15})\/?$/.exec(p)
  if (device) return <DevicePage id={Number(device[1])} />
  if (/^\/gateways\/\d{1,15}\/?$/.test(p)) return <GatewayPage id={Number(p.split('/')[2])} />
  if (p === '/devices' || p === '/devices/') return <DevicesPage />
  if (p === '/') return <OverviewPage />
  if (p === '/alerts' || p === '/alerts/') return <AlertsPage />
  const nav = NAV.find(([, href]) => href === p)
  return (
    <section>
      <h1>{nav ? t()[nav[0]] : t().notFound}</h1>
      {nav && <p>{t().comingSoon}</p>}
    </section>
  )
}

/** Active when the path is the link's page or below it (the overview only on `/`). */
const active = (href: string) =>
  href === '/' ? path.value === '/' : path.value === href || path.value.startsWith(`${href}/`)

export function App() {
  const s = session.value
  if (!s)
    return (
      <>
        <header class="top">
          <span class="brand">{t().appName}</span>
          <LanguageControl />
        </header>
        <SignIn />
      </>
    )
  return (
    <div class="shell" onClick={onLinkClick}>
      <header class="top">
        <span class="brand">{t().appName}</span>
        <LanguageControl />
        <span class="who">{s.email}</span>
        <button type="button" onClick={() => void signOut()}>
          {t().signOut}
        </button>
      </header>
      <nav aria-label="Main">
        <ul>
          {NAV.map(([key, href]) => (
            <li key={href}>
              <a href={href} aria-current={active(href) ? 'page' : undefined}>
                {t()[key]}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <main>
        <Page />
      </main>
    </div>
  )
}
