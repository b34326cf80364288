/**
 * A text to copy (a secret, a PEM): shown in a figure captioned with its name, with a Copy button ("Copy <name>")
 * whose outcome is announced in a status element. Its lines are kept.
 */
import { useState } from 'preact/hooks'
import { words } from '../i18n.ts'

const w = words(
  {
    copy: (what: string) => `Copy ${what}`,
    copyShort: 'Copy',
    copied: 'Copied',
    copyFailed: 'Copy failed: select the text and copy it.',
  },
  {
    copy: (what: string) => `复制${what}`,
    copyShort: '复制',
    copied: '已复制',
    copyFailed: '复制失败：请选中文本后复制。',
  },
)

/** A Copy button for `text` ("Copy <label>"), its outcome announced in a status element beside it. */
export function CopyButton(p: { label: string; text: string }) {
  const [state, setState] = useState<'' | 'copied' | 'failed'>('')
  const ww = w()
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(p.text)
      setState('copied')
    } catch {
      setState('failed')
    }
  }
  return (
    <>
      <button type="button" class="secondary" aria-label={ww.copy(p.label)} onClick={copy}>
        {ww.copyShort}
      </button>
      <span role="status">
        {state === 'copied' ? ww.copied : state === 'failed' ? ww.copyFailed : ''}
      </span>
    </>
  )
}

/** A value on one line with its Copy button. */
export function Copyable(p: { label: string; text: string }) {
  return (
    <div class="copyable">
      <code class="mono">{p.text}</code>
      <CopyButton label={p.label} text={p.text} />
    </div>
  )
}

export function CopyText(p: { label: string; text: string }) {
  return (
    <figure class="state-current copy-text">
      <figcaption>{p.label}</figcaption>
      <pre class="mono">{p.text}</pre>
      <div class="copyable">
        <CopyButton label={p.label} text={p.text} />
      </div>
    </figure>
  )
}
