/**
 * Export and import of devices as CSV. Both are tasks of the API: GET /devices_export (the list's filters) or
 * POST /devices_import answers a statusUrl, read until the task is done; the export's file is then fetched with the
 * session's token and offered as a download link, the import's result (created, failed, each row's error) shown.
 */
import { useEffect, useState } from 'preact/hooks'
import { api, authorization } from '../api/client.ts'
import { words } from '../i18n.ts'
import { TableHead } from './paged-list.tsx'
import { errorText } from './error-text.ts'
import { finished, useAlive } from './task.ts'

const w = words(
  {
    exportCsv: 'Export CSV',
    exporting: 'Exporting…',
    download: (n: number) => `Download CSV (${n} ${n === 1 ? 'device' : 'devices'})`,
    importCsv: 'Import CSV',
    importing: 'Importing…',
    imported: (ok: number, failed: number) => `Imported: ${ok} created, ${failed} failed.`,
    importErrors: 'Rows not imported',
    row: 'Row',
    field: 'Field',
    message: 'Message',
  },
  {
    exportCsv: '导出 CSV',
    exporting: '导出中…',
    download: (n: number) => `下载 CSV（${n} 台设备）`,
    importCsv: '导入 CSV',
    importing: '导入中…',
    imported: (ok: number, failed: number) => `导入完成：成功 ${ok}，失败 ${failed}。`,
    importErrors: '未导入的行',
    row: '行',
    field: '字段',
    message: '原因',
  },
)

/** The Export button and, once the file is ready, its download link. `query`: the list's filters. */
export function DeviceExport({ query }: { query: string }) {
  const alive = useAlive()
  const [busy, setBusy] = useState(false)
  const [file, setFile] = useState<{ url: string; name: string; count: number } | null>(null)
  const [error, setError] = useState<string | null>(null)
  useEffect(() => () => file && URL.revokeObjectURL(file.url), [file])

  const run = async () => {
    setBusy(true)
    setError(null)
    setFile(null)
    try {
      const started = await api<{ statusUrl: string; taskID: string }>(
        `/devices_export${query ? `?${query}` : ''}`,
      )
      const task = await finished(started.statusUrl, alive)
      const res = await fetch(`/api/v1/devices_export/${encodeURIComponent(started.taskID)}`, {
        headers: authorization(),
      })
      if (!res.ok) throw new Error(`${res.status} ${res.statusText}`)
      const name = /filename="([^"]+)"/.exec(res.headers.get('content-disposition') ?? '')?.[1]
      const count = (task.result as { count?: number } | null)?.count ?? 0
      const url = URL.createObjectURL(await res.blob())
      if (alive()) setFile({ url, name: name ?? 'devices.csv', count })
      else URL.revokeObjectURL(url)
    } catch (e) {
      if (alive()) setError(errorText(e))
    } finally {
      if (alive()) setBusy(false)
    }
  }

  return (
    <span class="transfer">
      <button type="button" class="secondary" disabled={busy} onClick={() => void run()}>
        {busy ? w().exporting : w().exportCsv}
      </button>
      {file && (
        <a href={file.url} download={file.name}>
          {w().download(file.count)}
        </a>
      )}
      {error && (
        <span role="alert" class="error">
          {error}
        </span>
      )}
    </span>
  )
}

interface ImportResult {
  success: number
  failed: number
  errors: Array<{ row: number; field: string; message: string }>
}

/** Sends the CSV file `chosen` to POST /devices_import; the import task's status address, or the refusal thrown. */
async function startImport(chosen: File): Promise<string> {
  const form = new FormData()
  form.set('file', chosen)
  const res = await fetch('/api/v1/devices_import', {
    method: 'POST',
    headers: { accept: 'application/json', ...authorization() },
    body: form,
  })
  const body = (await res.json().catch(() => ({}))) as {
    statusUrl?: string
    message?: string
    errors?: Record<string, unknown>
  }
  if (!res.ok || !body.statusUrl) {
    const fields = Object.entries(body.errors ?? {}).map(([k, v]) => `${k}: ${String(v)}`)
    throw new Error(
      [body.message ?? `${res.status} ${res.statusText}`, ...fields].join('; ') || 'refused',
    )
  }
  return body.statusUrl
}

/** How many rows were created and failed, and a row per refused row. */
function ImportOutcome({ result }: { result: ImportResult }) {
  return (
    <div class="import-result">
      <p role="status">{w().imported(result.success, result.failed)}</p>
      {result.errors.length > 0 && (
        <table>
          <caption>{w().importErrors}</caption>
          <TableHead columns={[w().row, w().field, w().message]} />
          <tbody>
            {result.errors.map((x, i) => (
              <tr key={i}>
                <td>{x.row}</td>
                <td class="mono">{x.field}</td>
                <td>{x.message}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  )
}

/** A CSV file chosen by the user, sent to POST /devices_import; `onImported` when rows were created. */
export function DeviceImport({ onImported }: { onImported: () => void }) {
  const alive = useAlive()
  const [busy, setBusy] = useState(false)
  const [result, setResult] = useState<ImportResult | null>(null)
  const [error, setError] = useState<string | null>(null)

  const upload = async (input: HTMLInputElement) => {
    const chosen = input.files?.[0]
    if (!chosen) return
    setBusy(true)
    setError(null)
    setResult(null)
    try {
      const task = await finished(await startImport(chosen), alive)
      const r = task.result as ImportResult
      if (!alive()) return
      setResult(r)
      if (r.success > 0) onImported()
    } catch (e) {
      if (alive()) setError(errorText(e))
    } finally {
      input.value = ''
      if (alive()) setBusy(false)
    }
  }

  return (
    <span class="transfer">
      <label class="file">
        {busy ? w().importing : w().importCsv}
        <input
          type="file"
          accept=".csv,text/csv"
          disabled={busy}
          onChange={(e) => void upload(e.currentTarget)}
        />
      </label>
      {error && (
        <span role="alert" class="error">
          {error}
        </span>
      )}
      {result && <ImportOutcome result={result} />}
    </span>
  )
}
