/** Client-side routing over the History API: the path is a signal, links and navigate() push to it. */
import { signal } from '@preact/signals'

export const path = signal(location.pathname)

window.addEventListener('popstate', () => {
  path.value = location.pathname
})

export function navigate(to: string, replace = false) {
  if (to === location.pathname + location.search) return
  if (replace) history.replaceState(null, '', to)
  else history.pushState(null, '', to)
  path.value = location.pathname
  window.scrollTo(0, 0)
}

/** A click on an in-app link: routed here unless a modifier asks the browser for a new tab. */
export function onLinkClick(e: MouseEvent) {
  if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey)
    return
  const a = (e.target as Element | null)?.closest('a')
  const href = a?.getAttribute('href')
  if (!a || !href || !href.startsWith('/') || a.target) return
  e.preventDefault()
  navigate(href)
}
