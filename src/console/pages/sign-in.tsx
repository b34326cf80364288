/** Sign in with email and password; a refusal is shown as an alert. */
import { useState } from 'preact/hooks'
import { ApiError, signIn } from '../api/client.ts'
import { t } from '../i18n.ts'
import { ErrorNote } from '../components/paged-list.tsx'

export function SignIn() {
  const [error, setError] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)
  const submit = async (e: Event) => {
    e.preventDefault()
    const form = new FormData(e.currentTarget as HTMLFormElement)
    setBusy(true)
    setError(null)
    try {
      await signIn(
        String((form.get('email') as string | null) ?? ''),
        String((form.get('password') as string | null) ?? ''),
      )
    } catch (err) {
      setError(err instanceof ApiError && err.status !== 401 ? err.message : t().signInFailed)
      setBusy(false)
    }
  }
  return (
    <main class="signin">
      <form onSubmit={submit}>
        <h1>{t().signIn}</h1>
        <label for="email">{t().email}</label>
        <input id="email" name="email" type="email" autocomplete="username" required />
        <label for="password">{t().password}</label>
        <input
          id="password"
          name="password"
          type="password"
          autocomplete="current-password"
          required
        />
        <ErrorNote error={error} />
        <button type="submit" disabled={busy}>
          {t().signIn}
        </button>
      </form>
    </main>
  )
}
