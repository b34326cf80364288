/**
 * Records found by name, checked and sent at once (a group's new members, a certificate's devices to bind): a search
 * box, a checkbox per match, a submit button enabled once one is checked. `read` answers the matches of what is
 * typed (read again when `version` changes), `send` the checked record ids; the API's refusal shows beside it.
 */
import { useState } from 'preact/hooks'
import { useDebouncedRead } from './debounced-read.ts'
import { errorText } from './error-text.ts'
import { ErrorNote, SearchBox } from './paged-list.tsx'

/** A record as the picks list it. */
export interface Pick {
  id: number
  name: string
}

export function PicksForm(p: {
  /** The form's name (its heading and its checkboxes' legend). */
  title: string
  searchLabel: string
  /** Said when nothing matches. */
  none: string
  submit: string
  read: (search: string) => Promise<Pick[]>
  /** Record ids not offered (already members). */
  exclude?: readonly number[]
  send: (ids: number[]) => Promise<unknown>
  onSent: () => void
  version: number
}) {
  const [search, setSearch] = useState('')
  const [picked, setPicked] = useState<Set<number>>(new Set())
  const [error, setError] = useState<string | null>(null)
  const read = useDebouncedRead(() => p.read(search.trim()), [search, p.version], search ? 200 : 0)
  const offered = read.data?.filter((x) => !p.exclude?.includes(x.id))
  const submit = async (ev: Event) => {
    ev.preventDefault()
    setError(null)
    try {
      await p.send([...picked])
      setPicked(new Set())
      p.onSent()
    } catch (e) {
      setError(errorText(e))
    }
  }
  const toggle = (id: number) =>
    setPicked((s) => {
      const n = new Set(s)
      if (!n.delete(id)) n.add(id)
      return n
    })
  return (
    <form aria-label={p.title} onSubmit={(e) => void submit(e)}>
      <h3>{p.title}</h3>
      <SearchBox label={p.searchLabel} value={search} onSearch={setSearch} />
      <fieldset class="picks">
        <legend>{p.title}</legend>
        {offered?.length === 0 && <p>{p.none}</p>}
        {offered?.map((x) => (
          <label key={x.id}>
            <input type="checkbox" checked={picked.has(x.id)} onChange={() => toggle(x.id)} />{' '}
            {x.name}
          </label>
        ))}
      </fieldset>
      <button type="submit" disabled={picked.size === 0}>
        {p.submit}
      </button>
      <ErrorNote error={error ?? read.error} />
    </form>
  )
}
