/**
 * The map's input: drag (mouse, pen or one finger) pans, two fingers pinch-zoom about their middle, the wheel
 * zooms about the pointer, arrow keys pan and + / - zoom while the map has focus; a press released where it
 * started is a click, and the mouse hovering reports where it is.
 */

export interface GestureHandlers {
  /** Moves the map by this many CSS pixels. */
  pan(dx: number, dy: number): void
  /** Zooms by `by` levels about a position of the map. */
  zoom(by: number, x: number, y: number): void
  click(x: number, y: number): void
  /** The mouse over the map (undefined: it left). */
  hover(at: [number, number] | undefined): void
  /** Whether a drag is under way (the cursor shows it). */
  dragging(on: boolean): void
}

/** Pixels a press may move and still be a click. */
const CLICK_SLOP = 5
const KEY_PAN = 100

/** A position of an event in `el`, CSS pixels from its top left corner. */
function localTo(el: HTMLElement, e: { clientX: number; clientY: number }): [number, number] {
  const r = el.getBoundingClientRect()
  return [e.clientX - r.left, e.clientY - r.top]
}

/** Pointer handling: drag, pinch, click, hover. */
function pointerHandlers(el: HTMLElement, h: GestureHandlers) {
  const pointers = new Map<number, [number, number]>()
  let travel = 0
  const spread = () => {
    const [a, b] = [...pointers.values()]
    return a && b
      ? { d: Math.hypot(a[0] - b[0], a[1] - b[1]), mid: [(a[0] + b[0]) / 2, (a[1] + b[1]) / 2] }
      : undefined
  }
  const down = (e: PointerEvent) => {
    if (e.button !== 0) return
    try {
      el.setPointerCapture(e.pointerId)
    } catch {
      // a pointer the browser no longer knows (a synthetic event): followed without capture
    }
    pointers.set(e.pointerId, localTo(el, e))
    // a pinch is no click
    travel = pointers.size === 1 ? 0 : Infinity
    h.dragging(true)
  }
  const move = (e: PointerEvent) => {
    const at = localTo(el, e)
    const was = pointers.get(e.pointerId)
    if (!was) return e.pointerType === 'mouse' && h.hover(at)
    const before = spread()
    pointers.set(e.pointerId, at)
    const after = spread()
    if (before && after) {
      if (before.d > 0) h.zoom(Math.log2(after.d / before.d), after.mid[0]!, after.mid[1]!)
      h.pan(after.mid[0]! - before.mid[0]!, after.mid[1]! - before.mid[1]!)
    } else if (pointers.size === 1) {
      travel += Math.hypot(at[0] - was[0], at[1] - was[1])
      h.pan(at[0] - was[0], at[1] - was[1])
    }
  }
  const up = (e: PointerEvent) => {
    if (!pointers.delete(e.pointerId)) return
    if (pointers.size > 0) return
    h.dragging(false)
    if (e.type === 'pointerup' && travel <= CLICK_SLOP) h.click(...localTo(el, e))
  }
  return { down, move, up }
}

const KEY_PANS: Record<string, [number, number]> = {
  ArrowLeft: [KEY_PAN, 0],
  ArrowRight: [-KEY_PAN, 0],
  ArrowUp: [0, KEY_PAN],
  ArrowDown: [0, -KEY_PAN],
}

/** Binds the handlers to `el`; answers the function that unbinds them. */
export function bindGestures(el: HTMLElement, h: GestureHandlers): () => void {
  const { down, move, up } = pointerHandlers(el, h)
  const wheel = (e: WheelEvent) => {
    e.preventDefault()
    const px = e.deltaMode === 1 ? e.deltaY * 16 : e.deltaMode === 2 ? e.deltaY * 400 : e.deltaY
    h.zoom(Math.max(-1, Math.min(1, -px / 120)), ...localTo(el, e))
  }
  const key = (e: KeyboardEvent) => {
    const r = el.getBoundingClientRect()
    const by = e.key === '+' || e.key === '=' ? 1 : e.key === '-' || e.key === '_' ? -1 : 0
    if (KEY_PANS[e.key]) h.pan(...KEY_PANS[e.key]!)
    else if (by) h.zoom(by, r.width / 2, r.height / 2)
    else return
    e.preventDefault()
  }
  const on: Array<[string, (e: never) => void, AddEventListenerOptions?]> = [
    ['pointerdown', down],
    ['pointermove', move],
    ['pointerup', up],
    ['pointercancel', up],
    ['pointerleave', () => h.hover(undefined)],
    ['wheel', wheel, { passive: false }],
    ['keydown', key],
  ]
  for (const [type, fn, opts] of on) el.addEventListener(type, fn as EventListener, opts)
  return () => {
    for (const [type, fn] of on) el.removeEventListener(type, fn as EventListener)
  }
}
