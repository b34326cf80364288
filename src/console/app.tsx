/** The shell: the sign-in page when signed out, else the navigation, the language control and the routed page. */
import { session, signOut } from './api/client.ts'
import { lang, setLang, t, type Lang } from './i18n.ts'
import { onLinkClick, path } from './router.ts'
import type { JSX } from 'preact'
import { effect, signal } from '@preact/signals'
import { lazyPage } from './lazy.tsx'
import { SignIn } from './pages/sign-in.tsx'
import { AlertBadge } from './components/alert-badge.tsx'

// every page but sign-in is its own chunk, fetched when first shown
const OverviewPage = lazyPage(() => import('./pages/overview.tsx').then((m) => m.OverviewPage))
const DevicesPage = lazyPage(() => import('./pages/devices.tsx').then((m) => m.DevicesPage))
const DevicePage = lazyPage(() => import('./pages/device.tsx').then((m) => m.DevicePage))
const MapPage = lazyPage(() => import('./pages/map.tsx').then((m) => m.MapPage))
const GatewayPage = lazyPage(() => import('./pages/gateway.tsx').then((m) => m.GatewayPage))
const AlertsPage = lazyPage(() => import('./pages/alerts.tsx').then((m) => m.AlertsPage))
const ProductsPage = lazyPage(() => import('./pages/products.tsx').then((m) => m.ProductsPage))
const ProductPage = lazyPage(() => import('./pages/product.tsx').then((m) => m.ProductPage))
const GroupsPage = lazyPage(() => import('./pages/groups.tsx').then((m) => m.GroupsPage))
const GroupPage = lazyPage(() => import('./pages/group.tsx').then((m) => m.GroupPage))
const SchedulesPage = lazyPage(() => import('./pages/schedules.tsx').then((m) => m.SchedulesPage))
const AlertRulesPage = lazyPage(() =>
  import('./pages/alert-rules.tsx').then((m) => m.AlertRulesPage),
)
const WebhooksPage = lazyPage(() => import('./pages/webhooks.tsx').then((m) => m.WebhooksPage))
const FirmwarePage = lazyPage(() => import('./pages/firmware.tsx').then((m) => m.FirmwarePage))
const RolloutPage = lazyPage(() => import('./pages/rollout.tsx').then((m) => m.RolloutPage))
const UsersPage = lazyPage(() => import('./pages/users.tsx').then((m) => m.UsersPage))
const ApplicationsPage = lazyPage(() =>
  import('./pages/applications.tsx').then((m) => m.ApplicationsPage),
)
const CertsPage = lazyPage(() => import('./pages/certs.tsx').then((m) => m.CertsPage))
const AuditPage = lazyPage(() => import('./pages/audit.tsx').then((m) => m.AuditPage))

type Key =
  | 'overview'
  | 'devices'
  | 'map'
  | 'products'
  | 'groups'
  | 'firmware'
  | 'alerts'
  | 'alertRules'
  | 'webhooks'
  | 'schedules'
  | 'users'
  | 'applications'
  | 'certificates'
  | 'auditLog'

const NAV: Array<[Key, string]> = [
  ['overview', '/'],
  ['devices', '/devices'],
  ['map', '/map'],
  ['products', '/products'],
  ['groups', '/groups'],
  ['firmware', '/firmware'],
  ['alerts', '/alerts'],
  ['alertRules', '/alert_rules'],
  ['webhooks', '/webhooks'],
  ['schedules', '/schedules'],
]

/** The admins' pages, listed after the others. */
const ADMIN_NAV: Array<[Key, string]> = [
  ['users', '/users'],
  ['applications', '/applications'],
  ['certificates', '/certs'],
  ['auditLog', '/audit'],
]

/** The navigation's links for a role: the admin pages for admins only. */
const navFor = (role: string) => (role === 'admin' ? [...NAV, ...ADMIN_NAV] : NAV)

function LanguageControl() {
  return (
    <label class="lang">
      <span class="lang-label">{t().language}</span>{' '}
      <select value={lang.value} onChange={(e) => setLang(e.currentTarget.value as Lang)}>
        <option value="en">English</option>
        <option value="zh">中文</option>
      </select>
    </label>
  )
}

/** The pages by path: a pattern (its group 1 the record id, if any) and what it renders. */
const ROUTES: Array<[RegExp, (id: number | undefined) => JSX.Element]> = [
  [/^\/$/, () => <OverviewPage />],
  [/^\/devices\/?$/, () => <DevicesPage />],
  [/^\/devices\/(\d{1,15})\/?$/, (id) => <DevicePage key={id} id={id!} />],
  [/^\/gateways\/(\d{1,15})\/?$/, (id) => <GatewayPage key={id} id={id!} />],
  [/^\/map\/?$/, () => <MapPage />],
  [/^\/products\/?$/, () => <ProductsPage />],
  [/^\/products\/(\d{1,15})\/?$/, (id) => <ProductPage key={id} id={id!} />],
  [/^\/groups\/?$/, () => <GroupsPage />],
  [/^\/groups\/(\d{1,15})\/?$/, (id) => <GroupPage key={id} id={id!} />],
  [/^\/firmware\/?$/, () => <FirmwarePage />],
  [/^\/firmware\/rollouts\/(\d{1,15})\/?$/, (id) => <RolloutPage key={id} id={id!} />],
  [/^\/alerts\/?$/, () => <AlertsPage />],
  [/^\/alert_rules\/?$/, () => <AlertRulesPage />],
  [/^\/webhooks(?:\/(\d{1,15}))?\/?$/, (id) => <WebhooksPage key={id} id={id} />],
  [/^\/schedules\/?$/, () => <SchedulesPage />],
  [/^\/users\/?$/, () => <UsersPage />],
  [/^\/applications\/?$/, () => <ApplicationsPage />],
  [/^\/certs(?:\/(\d{1,15}))?\/?$/, (id) => <CertsPage key={id} id={id} />],
  [/^\/audit\/?$/, () => <AuditPage />],
]

function Page() {
  for (const [pattern, render] of ROUTES) {
    const m = pattern.exec(path.value)
    if (m) return render(m[1] === undefined ? undefined : Number(m[1]))
  }
  return (
    <section>
      <h1>{t().notFound}</h1>
    </section>
  )
}

/** Active when the path is the link's page or below it (the overview only on `/`). */
const active = (href: string) =>
  href === '/' ? path.value === '/' : path.value === href || path.value.startsWith(`${href}/`)

/** Whether the navigation is open on a phone (CSS shows the Menu button and hides the closed list there). */
const menuOpen = signal(false)
effect(() => {
  void path.value // a link followed closes it
  menuOpen.value = false
})

function MenuButton() {
  return (
    <button
      type="button"
      class="menu-toggle"
      aria-expanded={menuOpen.value}
      aria-controls="main-nav"
      onClick={() => (menuOpen.value = !menuOpen.value)}
    >
      {t().menu}
    </button>
  )
}

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
        <MenuButton />
        <span class="brand">{t().appName}</span>
        <LanguageControl />
        <span class="who">{s.email}</span>
        <button type="button" onClick={() => void signOut()}>
          {t().signOut}
        </button>
      </header>
      <nav id="main-nav" aria-label="Main" class={menuOpen.value ? 'open' : undefined}>
        <ul>
          {navFor(s.role).map(([key, href]) => (
            <li key={href}>
              <a href={href} aria-current={active(href) ? 'page' : undefined}>
                {t()[key]}
              </a>
              {key === 'alerts' && <AlertBadge />}
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
