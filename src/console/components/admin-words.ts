/**
 * The labels the admin pages show for codes: roles, audit actions and resource types (the console's own copy, as
 * the API keeps them as plain text) and the API enumerations of enum-labels.ts, in the console's language. A code
 * without a label shows as itself.
 */
import { enCodes, enEnums, zhCodes, zhEnums } from '../enum-labels.ts'
import { lang } from '../i18n.ts'

export type CodeKind = keyof typeof enCodes

/** The label of `code` of `kind` ('role', 'auditAction', 'auditResource'). */
export const codeLabel = (kind: CodeKind, code: string | null | undefined): string =>
  code == null ? '' : ((lang.value === 'en' ? enCodes : zhCodes)[kind][code] ?? code)

/** Every code of `kind`, in the order the labels list them, with its label. */
export const codeOptions = (kind: CodeKind): Array<[code: string, label: string]> =>
  Object.entries((lang.value === 'en' ? enCodes : zhCodes)[kind])

/** The label of an API enumeration's code (enum-labels.ts). */
export const enumLabel = (name: keyof typeof enEnums, code: number | string): string =>
  (lang.value === 'en' ? enEnums : zhEnums)[name][code] ?? String(code)

/** The roles a user or an application may have, most powerful first. */
export const ROLES = ['admin', 'user', 'viewer'] as const
