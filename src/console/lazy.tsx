/**
 * Pages loaded when first shown: each is its own chunk of the bundle, so that the sign-in page carries only the
 * shell. `lazyPage(() => import('./pages/x.tsx').then((m) => m.XPage))` answers a component that renders the page
 * once its chunk is in, a loading line before that and an error line with Retry when the chunk cannot be fetched.
 */
import type { ComponentType } from 'preact'
import { useEffect, useState } from 'preact/hooks'
import { t } from './i18n.ts'

export function lazyPage<P extends object>(load: () => Promise<ComponentType<P>>) {
  let loaded: ComponentType<P> | undefined
  let pending: Promise<ComponentType<P>> | undefined
  return function LazyPage(props: P) {
    const [, setReady] = useState(0)
    const [failed, setFailed] = useState(false)
    useEffect(() => {
      if (loaded || failed) return
      let live = true
      pending ??= load().then((c) => (loaded = c))
      pending.then(
        () => live && setReady((n) => n + 1),
        () => {
          pending = undefined
          if (live) setFailed(true)
        },
      )
      return () => {
        live = false
      }
    }, [failed])
    const Page = loaded
    if (Page) return <Page {...props} />
    if (failed)
      return (
        <p role="alert" class="error">
          {t().loadFailed}{' '}
          <button type="button" onClick={() => setFailed(false)}>
            {t().retry}
          </button>
        </p>
      )
    return <p aria-busy="true">{t().loading}</p>
  }
}
