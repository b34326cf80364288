/** Client-side routing over the History API: the path is a signal, links and navigate() push to it. */
import { signal } from '@preact/signals'

export const path = signal(location.pathname)
/** The address's query (`?a=1`, '' when none), followed as the path is. */
export const search = signal(location.search)

window.addEventListener('popstate', () => {
  path.value = location.pathname
  search.value = location.search
})

export function navigate(to: string, replace = false) {
  if (to === location.pathname + location.search) return
  if (replace) history.replaceState(null, '', to)
  else history.pushState(null, '', to)
  path.value = location.pathname
  search.value = location.search
  window.scrollTo(0, 0)
}

/** Replaces the address without a step of history (a page's filters changed), unless it is that already. */
export function replaceAddress(to: string) {
  if (to === location.pathname + location.search) return
  history.replaceState(null, '', to)
  path.value = location.pathname
  search.value = location.search
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
