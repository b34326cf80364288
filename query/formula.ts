import { createRequire } from 'node:module'
import type { MathJsInstance, MathNode } from 'mathjs'

/**
 * Formula metrics: a mathjs expression over the product's dataPointIDs, and `value` for the metric's
 * own data point. A dataPointID that is not a plain identifier (it contains `-`) is written `dp("the-id")`.
 *
 * Formulas go only through the ONE restricted mathjs instance below. Two layers keep them
 * harmless: the instance's dangerous functions throw (the pattern of the mathjs "security" page), and every parsed
 * tree is walked against an allow-list of node kinds, operators, functions and symbols before it is compiled.
 */

/** A formula that does not parse, uses something not allowed, or names an unknown data point. */
export class FormulaError extends Error {}

type MathJs = typeof import('mathjs')
let lib: MathJs | undefined
/**
 * mathjs, loaded by the first formula rather than with this module: importing it builds its whole default instance
 * (~30 MB of heap, and more CPU than the rest of the service's start), which a service that meets no formula never
 * needs. It is required (its CommonJS build), so that compileFormula stays synchronous.
 */
const mathjs = (): MathJs => (lib ??= createRequire(import.meta.url)('mathjs') as MathJs)

let restricted: { math: MathJsInstance; parse: MathJsInstance['parse'] } | undefined
/** The restricted instance, made on first use, and its parser (taken before `parse` is disabled). */
function math() {
  if (restricted) return restricted
  const m = mathjs().create(mathjs().all!, { predictable: true })
  const parse = m.parse
  m.import(Object.fromEntries(DISABLED.map((n) => [n, disabled(n)])), { override: true })
  return (restricted = { math: m, parse })
}

const disabled = (name: string) => () => {
  throw new FormulaError(`function ${name} is disabled`)
}
const DISABLED = [
  'import',
  'createUnit',
  'evaluate',
  'parse',
  'simplify',
  'simplifyConstant',
  'simplifyCore',
  'derivative',
  'compile',
  'resolve',
  'reviver',
  'rationalize',
  'leafCount',
  'parser',
  'chain',
  'help',
  'replacer',
]

/**
 * Math functions a formula may call, with the number of arguments each takes on numbers: [least, most]
 * (most Infinity for variadic ones). A call outside that range would only fail at evaluation, so it is refused
 * when the formula is compiled.
 */
const ARITY: Readonly<Record<string, readonly [number, number]>> = {
  abs: [1, 1],
  sqrt: [1, 1],
  cbrt: [1, 1],
  pow: [2, 2],
  exp: [1, 1],
  log: [1, 2],
  log10: [1, 1],
  log2: [1, 1],
  min: [1, Infinity],
  max: [1, Infinity],
  round: [1, 2],
  floor: [1, 2],
  ceil: [1, 2],
  fix: [1, 2],
  sign: [1, 1],
  mod: [2, 2],
  hypot: [1, Infinity],
  sin: [1, 1],
  cos: [1, 1],
  tan: [1, 1],
  asin: [1, 1],
  acos: [1, 1],
  atan: [1, 1],
  atan2: [2, 2],
  sinh: [1, 1],
  cosh: [1, 1],
  tanh: [1, 1],
}

/** Math functions a formula may call. */
export const FUNCTIONS: ReadonlySet<string> = new Set(Object.keys(ARITY))

/** Functions whose second argument is a number of decimals: mathjs accepts only an integer 0 to 15. */
const DECIMALS: ReadonlySet<string> = new Set(['round', 'floor', 'ceil', 'fix'])
const MAX_DECIMALS = 15

/** Operators (mathjs function names of OperatorNode) a formula may use: arithmetic, comparison, logic. */
const OPERATORS: ReadonlySet<string> = new Set([
  'add',
  'subtract',
  'multiply',
  'divide',
  'pow',
  'mod',
  'unaryMinus',
  'unaryPlus',
  'larger',
  'smaller',
  'largerEq',
  'smallerEq',
  'equal',
  'unequal',
  'and',
  'or',
  'not',
  'xor',
])

const CONSTANTS: ReadonlySet<string> = new Set(['pi', 'e', 'PI', 'E'])

/** Node kinds that may appear at all (everything else: assignments, accessors, objects, arrays, blocks ...). */
const NODES: ReadonlySet<string> = new Set([
  'ConstantNode',
  'SymbolNode',
  'OperatorNode',
  'FunctionNode',
  'ParenthesisNode',
  'ConditionalNode',
  'RelationalNode',
])

/** At most this many characters: formulas are short, and the parser recurses. */
export const MAX_FORMULA_LENGTH = 1000

export interface Formula {
  /** The data point ids the formula reads (each once, in order of first use); constants are not listed. */
  symbols: string[]
  /** Evaluates with a value for every symbol; a non-numeric result is NaN (booleans count as 1 and 0). */
  evaluate(scope: Record<string, number>): number
  /** As `evaluate`, but undefined (not a FormulaError) when a symbol has no number in `scope`. */
  valueIn(scope: Record<string, number>): number | undefined
}

type Node = MathNode & {
  type: string
  name?: string
  fn?: Node
  args?: Node[]
  value?: unknown
  op?: string
}

/**
 * Parses and checks `expr` once; the result evaluates fast (compile once per metric, evaluate per time).
 * Throws FormulaError for a syntax error (the parser's message), a forbidden construct, or a symbol that is not
 * one of `allowedIds` (all unknown names are listed).
 */
export function compileFormula(expr: string, allowedIds: readonly string[]): Formula {
  if (expr.length > MAX_FORMULA_LENGTH)
    throw new FormulaError(`at most ${MAX_FORMULA_LENGTH} characters`)
  let tree: Node
  try {
    tree = math().parse(expr)
  } catch (e) {
    throw new FormulaError((e as Error).message)
  }
  const allowed = new Set(allowedIds)
  const safe = new Map<string, string>()
  const unknown = new Set<string>()
  const ref = (id: string) => {
    if (!allowed.has(id)) unknown.add(id)
    if (!safe.has(id)) safe.set(id, `__dp${safe.size}`)
    return new (math().math.SymbolNode)(safe.get(id)!)
  }
  const rewritten = tree.transform((node, path) => {
    const n = node
    if (isDp(n)) return ref(dpArgument(n))
    if (n.type === 'SymbolNode' && path !== 'fn')
      return CONSTANTS.has(n.name!) && !allowed.has(n.name!) ? n : ref(n.name!)
    checkNode(n)
    return n
  }) as Node
  if (unknown.size) throw new FormulaError(`unknown data point: ${[...unknown].join(', ')}`)
  return build(rewritten, safe)
}

function isDp(n: Node): boolean {
  return n.type === 'FunctionNode' && n.fn?.type === 'SymbolNode' && n.fn.name === 'dp'
}

function dpArgument(n: Node): string {
  const arg = n.args?.[0]
  if (n.args?.length !== 1 || arg?.type !== 'ConstantNode' || typeof arg.value !== 'string')
    throw new FormulaError('dp() takes one quoted data point id, e.g. dp("the-id")')
  return arg.value
}

/** Throws unless the node is of an allowed kind (function names, operators and constants checked too). */
function checkNode(n: Node) {
  if (!NODES.has(n.type)) throw new FormulaError(`${describe(n.type)} is not allowed in a formula`)
  if (n.type === 'FunctionNode') {
    if (n.fn?.type !== 'SymbolNode')
      throw new FormulaError('only plain math functions may be called')
    if (!FUNCTIONS.has(n.fn.name!)) throw new FormulaError(`function ${n.fn.name} is not allowed`)
    checkArguments(n.fn.name!, n.args ?? [])
  }
  // fails closed: a node that says it is an operator but is not one mathjs recognises is refused too
  if (n.type === 'OperatorNode' && !(mathjs().isOperatorNode(n) && OPERATORS.has(n.fn)))
    throw new FormulaError(`operator ${n.op} is not allowed`)
  if (n.type === 'ConstantNode' && typeof n.value !== 'number' && typeof n.value !== 'boolean')
    throw new FormulaError(`constant ${JSON.stringify(n.value) ?? String(n.value)} is not allowed`)
}

/** Throws unless `name` (an allowed function) is called with as many arguments as it takes. */
function checkArguments(name: string, args: readonly Node[]) {
  const [least, most] = ARITY[name]!
  if (args.length < least || args.length > most) {
    const takes =
      least === most
        ? `${least} argument${least === 1 ? '' : 's'}`
        : most === Infinity
          ? `at least ${least} argument${least === 1 ? '' : 's'}`
          : `${least} to ${most} arguments`
    throw new FormulaError(`function ${name} takes ${takes}, not ${args.length}`)
  }
  const digits = args[1]
  if (DECIMALS.has(name) && digits) {
    const v = digits.type === 'ConstantNode' ? digits.value : undefined
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > MAX_DECIMALS)
      throw new FormulaError(
        `the decimals of ${name} must be a whole number from 0 to ${MAX_DECIMALS}, written as is`,
      )
  }
}

const NODE_NAMES: Record<string, string> = {
  AssignmentNode: 'an assignment',
  FunctionAssignmentNode: 'a function definition',
  AccessorNode: 'property access',
  IndexNode: 'property access',
  ObjectNode: 'an object',
  ArrayNode: 'an array',
  BlockNode: 'a block of several expressions',
  RangeNode: 'a range',
}
const describe = (type: string) => NODE_NAMES[type] ?? type

function build(tree: Node, safe: Map<string, string>): Formula {
  const ids = [...safe.keys()]
  // the symbols' values in one array, reused by every call (evaluation is synchronous): slot i holds ids[i], the
  // tree's `__dp{i}`; the compiled closures read slots, never names
  const slots: number[] = ids.map(() => 0)
  const read = (scope: Record<string, number>) => {
    for (let i = 0; i < ids.length; i++) {
      const v = Object.hasOwn(scope, ids[i]!) ? scope[ids[i]!] : undefined
      if (typeof v !== 'number') return false
      slots[i] = v
    }
    return true
  }
  const fast = fastCompile(tree)
  const code = fast ? undefined : tree.compile()
  const valueIn: Formula['valueIn'] = fast
    ? (scope) => {
        if (!read(scope)) return undefined
        const out = fast(slots)
        return typeof out === 'number' ? out : Number(out)
      }
    : (scope) => {
        if (!read(scope)) return undefined
        // mathjs takes a Map as its scope
        const out: unknown = code!.evaluate(new Map(slots.map((v, i) => [`__dp${i}`, v])))
        return typeof out === 'number' ? out : typeof out === 'boolean' ? Number(out) : NaN
      }
  return {
    symbols: ids,
    valueIn,
    evaluate(scope) {
      const v = valueIn(scope)
      if (v !== undefined) return v
      const missing = ids.find((id) => !Object.hasOwn(scope, id) || typeof scope[id] !== 'number')
      throw new FormulaError(`no value for ${missing}`)
    },
  }
}

/** A compiled formula over its symbols' values (slot i: `__dp{i}`). */
type Fast = (slots: readonly number[]) => number | boolean

/** mathjs' number comparison: equal within a relative tolerance of 1e-12 (absolute 1e-15). */
function nearlyEqual(a: number, b: number): boolean {
  if (Number.isNaN(a) || Number.isNaN(b)) return false
  if (!Number.isFinite(a) || !Number.isFinite(b)) return a === b
  if (a === b) return true
  return Math.abs(a - b) <= Math.max(1e-12 * Math.max(Math.abs(a), Math.abs(b)), 1e-15)
}

const BINARY: Record<string, (a: number, b: number) => number | boolean> = {
  add: (a, b) => a + b,
  subtract: (a, b) => a - b,
  multiply: (a, b) => a * b,
  divide: (a, b) => a / b,
  pow: (a, b) => Math.pow(a, b),
  larger: (a, b) => a > b && !nearlyEqual(a, b),
  smaller: (a, b) => a < b && !nearlyEqual(a, b),
  largerEq: (a, b) => a > b || nearlyEqual(a, b),
  smallerEq: (a, b) => a < b || nearlyEqual(a, b),
  equal: (a, b) => nearlyEqual(a, b),
  unequal: (a, b) => !nearlyEqual(a, b),
  and: (a, b) => !!(a && b),
  or: (a, b) => !!(a || b),
  xor: (a, b) => !!((a || b) && !(a && b)),
}
const UNARY: Record<string, (a: number) => number | boolean> = {
  unaryMinus: (a) => -a,
  unaryPlus: (a) => a,
  not: (a) => !a,
}
/** Functions whose mathjs result on numbers (with `predictable`) is exactly Math's. */
const MATH: Record<string, (...a: number[]) => number> = {
  abs: Math.abs,
  sqrt: Math.sqrt,
  exp: Math.exp,
  sin: Math.sin,
  cos: Math.cos,
  tan: Math.tan,
}
const CONSTANT_VALUES: Record<string, number> = { pi: Math.PI, PI: Math.PI, e: Math.E, E: Math.E }

/** A data point's slot (`__dp{i}`) or a number, seen through parentheses; undefined for anything else. */
function leaf(n: Node): { slot?: number; value?: number } | undefined {
  if (n.type === 'ParenthesisNode')
    return mathjs().isParenthesisNode(n) ? leaf(n.content) : undefined
  if (n.type === 'ConstantNode') return typeof n.value === 'number' ? { value: n.value } : undefined
  if (n.type !== 'SymbolNode') return undefined
  const name = n.name!
  if (name in CONSTANT_VALUES) return { value: CONSTANT_VALUES[name]! }
  return /^__dp\d+$/.test(name) ? { slot: Number(name.slice(4)) } : undefined
}

/** A compiled operand known to give a number. */
const num = (f: Fast | undefined) => f as ((s: readonly number[]) => number) | undefined

/**
 * The checked tree as plain closures, for the common case (numbers, arithmetic, comparisons, logic and a few
 * functions whose results equal mathjs' exactly): tens of times faster than mathjs' evaluate, which alert rules
 * need on every uplink. Undefined when the tree uses anything else; mathjs evaluates those.
 */
function fastCompile(n: Node): Fast | undefined {
  switch (n.type) {
    case 'ConstantNode':
      return typeof n.value === 'number' || typeof n.value === 'boolean'
        ? (
            (v) => () =>
              v
          )(n.value)
        : undefined
    case 'SymbolNode': {
      // a named constant or a data point's slot
      const l = leaf(n)
      if (l?.value !== undefined) {
        const v = l.value
        return () => v
      }
      if (l?.slot === undefined) return undefined
      const i = l.slot
      return (s) => s[i]!
    }
    case 'ParenthesisNode':
      return mathjs().isParenthesisNode(n) ? fastCompile(n.content) : undefined
    case 'OperatorNode':
      return fastOperator(n)
    case 'FunctionNode':
      return fastFunction(n)
    case 'ConditionalNode': {
      if (!mathjs().isConditionalNode(n)) return undefined
      const [cond, yes, no] = [n.condition, n.trueExpr, n.falseExpr].map(fastCompile)
      if (!cond || !yes || !no) return undefined
      return (s) => (cond(s) ? yes(s) : no(s))
    }
    case 'RelationalNode':
      return fastRelational(n)
    default:
      return undefined
  }
}

/** An operator of BINARY or UNARY over operands `fastCompile` takes. */
function fastOperator(n: Node): Fast | undefined {
  if (!mathjs().isOperatorNode(n)) return undefined
  const fn: string = n.fn
  const args = (n.args ?? []).map((a) => num(fastCompile(a)))
  if (args.some((a) => !a)) return undefined
  const [a, b] = args as Array<(s: readonly number[]) => number>
  if (args.length === 2 && BINARY[fn]) {
    const op = BINARY[fn]
    // a data point against a number or another data point (most conditions): read in place, one call less
    const [x, y] = [leaf(n.args[0]!), leaf(n.args[1]!)]
    if (x?.slot !== undefined && y?.value !== undefined) {
      const [i, c] = [x.slot, y.value]
      return (s) => op(s[i]!, c)
    }
    if (x?.value !== undefined && y?.slot !== undefined) {
      const [c, j] = [x.value, y.slot]
      return (s) => op(c, s[j]!)
    }
    if (x?.slot !== undefined && y?.slot !== undefined) {
      const [i, j] = [x.slot, y.slot]
      return (s) => op(s[i]!, s[j]!)
    }
    return (s) => op(a!(s), b!(s))
  }
  if (args.length === 1 && UNARY[fn]) {
    const op = UNARY[fn]
    return (s) => op(a!(s))
  }
  return undefined
}

/** A function of MATH over operands `fastCompile` takes. */
function fastFunction(n: Node): Fast | undefined {
  const f = MATH[n.fn?.name ?? '']
  const args = (n.args ?? []).map((a) => num(fastCompile(a)))
  if (!f || !args.length || args.some((a) => !a)) return undefined
  const fs = args as Array<(s: readonly number[]) => number>
  if (fs.length === 1) {
    const g = fs[0]!
    return (s) => f(g(s))
  }
  return (s) => f(...fs.map((g) => g(s)))
}

/** A chain of comparisons (`a < b <= c`) over operands `fastCompile` takes. */
function fastRelational(n: Node): Fast | undefined {
  if (!mathjs().isRelationalNode(n)) return undefined
  const params = n.params.map((p) => num(fastCompile(p)))
  const ops = n.conditionals.map((c) => BINARY[c])
  if (params.some((p) => !p) || ops.some((o) => !o)) return undefined
  const ps = params as Array<(s: readonly number[]) => number>
  const os = ops as Array<(a: number, b: number) => number | boolean>
  // each operand once, left to right, stopping at the first comparison that fails (no array a call)
  return (s) => {
    let left = ps[0]!(s)
    for (let i = 0; i < os.length; i++) {
      const right = ps[i + 1]!(s)
      if (!os[i]!(left, right)) return false
      left = right
    }
    return true
  }
}
