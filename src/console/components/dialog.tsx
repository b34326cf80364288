/** What the console's modal dialogs share: shown as a modal once mounted, and their Save and Cancel buttons. */
import { useEffect, useRef } from 'preact/hooks'

/** The ref of a `<dialog>` that opens as a modal when the component mounts (Escape or `close()` ends it). */
export function useModal() {
  const ref = useRef<HTMLDialogElement>(null)
  useEffect(() => {
    const el = ref.current
    if (el && !el.open) el.showModal()
  }, [])
  return ref
}

/** Save (the form's submit, disabled while `busy`) and Cancel (closes the dialog of `dialog`). */
export function DialogButtons(p: {
  dialog: { current: HTMLDialogElement | null }
  busy: boolean
  save: string
  cancel: string
}) {
  return (
    <div class="toolbar">
      <button type="submit" disabled={p.busy}>
        {p.save}
      </button>
      <button type="button" class="secondary" onClick={() => p.dialog.current?.close()}>
        {p.cancel}
      </button>
    </div>
  )
}
