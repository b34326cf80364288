/**
 * The words of the firmware pages (packages, rollouts, a device's history, a product's versions), English and
 * Chinese, and what they share: sizes, the labels of the statuses, a rollout's target and its finished share.
 */
import { enEnums, zhEnums } from '../enum-labels.ts'
import { browserLang, lang, words } from '../i18n.ts'
import type { RolloutWire } from '../api/wire.ts'

/** `n devices` in English, `1 device` for one. */
const devicesEn = (n: number) => (n === 1 ? '1 device' : `${n} devices`)

export const fww = words(
  {
    packages: 'Packages',
    showProduct: 'Show product',
    upload: 'Upload a package',
    uploadButton: 'Upload',
    uploading: 'Uploading…',
    uploadProgress: 'Upload progress',
    uploaded: (version: string) => `Uploaded ${version}.`,
    cancelUpload: 'Cancel upload',
    uploadCanceled: 'Upload canceled.',
    uploadFailed: 'The upload failed: the connection was lost.',
    ofBytes: (done: string, all: string) => `${done} of ${all}`,
    file: 'File',
    version: 'Version',
    description: 'Description',
    sha256: 'SHA-256',
    sha256Optional: 'SHA-256 (optional)',
    size: 'Size',
    copyShort: 'Copy',
    copySha: (version: string) => `Copy the SHA-256 of ${version}`,
    copied: 'Copied',
    copyFailed: 'Copy failed: select the text and copy it.',
    rollOut: 'Roll out',
    delete: 'Delete',
    confirmDelete: (version: string, product: string) =>
      `Delete package ${version} of ${product}? Its file goes too.`,
    // rollouts
    rollouts: 'Rollouts',
    rollout: 'Rollout',
    rolloutOf: (version: string, target: string) => `${version} → ${target}`,
    newRollout: (version: string, product: string) => `Roll out ${version} of ${product}`,
    target: 'Target',
    chooseTarget: 'Choose a group or the whole product',
    wholeProduct: (n: number) => `Whole product (${devicesEn(n)})`,
    wholeProductShort: 'Whole product',
    groupOption: (name: string, n: number) => `Group ${name} (${devicesEn(n)})`,
    devicesTarget: devicesEn,
    fromVersions: 'Only devices running (optional)',
    versionCount: (version: string, n: number) => `${version} (${n})`,
    noVersions: 'No device of this product reports a version yet.',
    ratePerMinute: 'Devices a minute',
    rampUp: 'Ramp up: start slower',
    startPerMinute: 'Start, devices a minute',
    factor: 'Multiply the rate by',
    every: 'Every N devices updated',
    abortFailedPercent: 'Abort at % failed',
    abortMinFinished: 'Minimum finished',
    timeoutMinutes: 'Device timeout (min)',
    retries: 'Retries',
    start: 'Start rollout',
    cancel: 'Cancel',
    // a rollout's page
    status: 'Status',
    statusIs: 'Status:',
    rolloutStatus: 'Rollout status',
    progress: 'Progress',
    rolloutProgress: 'Rollout progress',
    finishedOf: (done: number, total: number, pct: number) =>
      `${done} of ${total} finished (${pct}%)`,
    counts: 'Devices by state',
    pause: 'Pause',
    resume: 'Resume',
    cancelRollout: 'Cancel rollout',
    confirmCancel: (name: string) =>
      `Cancel rollout ${name}? Queued devices are not notified, devices updating are told to stop.`,
    settings: 'Settings',
    product: 'Product',
    packageVersion: 'Package',
    pace: 'Pace',
    perMinute: (n: number) => `${n} a minute`,
    rampUpText: (start: number, factor: number, every: number) =>
      `from ${start} a minute, ×${factor} every ${every} devices updated`,
    abortText: (pct: number, min: number) => `at ${pct}% failed, once ${min} finished`,
    abort: 'Abort',
    onlyVersions: 'Only devices running',
    timeout: 'Timeout per device',
    never: 'Never',
    neverShort: 'never',
    none: 'None',
    allVersions: 'All',
    minutes: (n: number) => `${n} min`,
    createdBy: 'Created by',
    finishedAt: 'Finished',
    devices: 'Devices',
    state: 'State',
    allStates: (n: number) => `All (${n})`,
    stateCount: (label: string, n: number) => `${label} (${n})`,
    rolloutDevices: 'Devices of the rollout',
    attempt: 'Attempt',
    error: 'Error',
    updated: 'Updated',
    // a device's history, a product's versions
    firmwareHistory: 'Firmware history',
    rolloutOfVersion: (version: string) => `Rollout of ${version}`,
    deviceStatus: 'Device status',
    fleetVersions: 'Firmware versions',
    deviceCount: 'Devices',
    notReported: 'Not reported',
    devicesRunning: (version: string) => `Devices running ${version}`,
    productPackages: 'Firmware packages of this product',
  },
  {
    packages: '固件包',
    showProduct: '显示产品',
    upload: '上传固件包',
    uploadButton: '上传',
    uploading: '上传中…',
    uploadProgress: '上传进度',
    uploaded: (version: string) => `已上传 ${version}。`,
    cancelUpload: '取消上传',
    uploadCanceled: '已取消上传。',
    uploadFailed: '上传失败：连接已断开。',
    ofBytes: (done: string, all: string) => `${done} / ${all}`,
    file: '文件',
    version: '版本',
    description: '描述',
    sha256: 'SHA-256',
    sha256Optional: 'SHA-256（可选）',
    size: '大小',
    copyShort: '复制',
    copySha: (version: string) => `复制 ${version} 的 SHA-256`,
    copied: '已复制',
    copyFailed: '复制失败：请选中文本后复制。',
    rollOut: '升级',
    delete: '删除',
    confirmDelete: (version: string, product: string) =>
      `删除 ${product} 的固件包 ${version}？其文件将一并删除。`,
    rollouts: '升级任务',
    rollout: '升级任务',
    rolloutOf: (version: string, target: string) => `${version} → ${target}`,
    newRollout: (version: string, product: string) => `升级 ${product} 到 ${version}`,
    target: '升级范围',
    chooseTarget: '选择分组或整个产品',
    wholeProduct: (n: number) => `整个产品（${n} 台设备）`,
    wholeProductShort: '整个产品',
    groupOption: (name: string, n: number) => `分组 ${name}（${n} 台设备）`,
    devicesTarget: (n: number) => `${n} 台设备`,
    fromVersions: '仅限运行以下版本的设备（可选）',
    versionCount: (version: string, n: number) => `${version}（${n}）`,
    noVersions: '该产品的设备尚未上报版本。',
    ratePerMinute: '每分钟设备数',
    rampUp: '逐步加速：开始时放慢',
    startPerMinute: '起始每分钟设备数',
    factor: '速率倍数',
    every: '每升级成功 N 台',
    abortFailedPercent: '失败比例中止（%）',
    abortMinFinished: '至少完成台数',
    timeoutMinutes: '单台超时（分钟）',
    retries: '重试次数',
    start: '开始升级',
    cancel: '取消',
    status: '状态',
    statusIs: '状态：',
    rolloutStatus: '升级任务状态',
    progress: '进度',
    rolloutProgress: '升级进度',
    finishedOf: (done: number, total: number, pct: number) =>
      `已完成 ${done} / ${total}（${pct}%）`,
    counts: '各状态设备数',
    pause: '暂停',
    resume: '继续',
    cancelRollout: '取消升级任务',
    confirmCancel: (name: string) =>
      `取消升级任务 ${name}？排队中的设备不再通知，升级中的设备将收到停止通知。`,
    settings: '设置',
    product: '产品',
    packageVersion: '固件包',
    pace: '速率',
    perMinute: (n: number) => `每分钟 ${n} 台`,
    rampUpText: (start: number, factor: number, every: number) =>
      `起始每分钟 ${start} 台，每升级成功 ${every} 台速率 ×${factor}`,
    abortText: (pct: number, min: number) => `失败达 ${pct}% 时（至少完成 ${min} 台后）`,
    abort: '中止条件',
    onlyVersions: '仅限运行以下版本的设备',
    timeout: '单台设备超时',
    never: '不中止',
    neverShort: '不中止',
    none: '无',
    allVersions: '全部',
    minutes: (n: number) => `${n} 分钟`,
    createdBy: '创建人',
    finishedAt: '结束时间',
    devices: '设备',
    state: '状态',
    allStates: (n: number) => `全部（${n}）`,
    stateCount: (label: string, n: number) => `${label}（${n}）`,
    rolloutDevices: '升级任务的设备',
    attempt: '尝试次数',
    error: '错误',
    updated: '更新时间',
    firmwareHistory: '固件升级记录',
    rolloutOfVersion: (version: string) => `${version} 的升级任务`,
    deviceStatus: '设备状态',
    fleetVersions: '固件版本分布',
    deviceCount: '设备数',
    notReported: '未上报',
    devicesRunning: (version: string) => `运行 ${version} 的设备`,
    productPackages: '该产品的固件包',
  },
)

/** A device's states in a rollout, in the order they are reached (the API's `counts` keys). */
export const OTA_STATES = [
  'queued',
  'notified',
  'downloading',
  'downloaded',
  'verifying',
  'updating',
  'updated',
  'failed',
  'timed_out',
  'canceled',
] as const

/** The states in which a device is done with a rollout: the progress bar's share. */
export const FINISHED_STATES = ['updated', 'failed', 'timed_out', 'canceled'] as const

/** The rollout states from which it goes on (and may be paused, resumed or canceled). */
export const OPEN_ROLLOUT = new Set(['running', 'paused'])

/**
 * The language the API answers labels in: the browser's first language (its Accept-Language), which the console's
 * Language control does not change.
 */
const apiLang = () => browserLang(navigator.language)

/**
 * The label of a status: the API's (`statusLabel`) while the console speaks the API's language, else the console's
 * copy of the enumeration in the language chosen (also for a status that came from the event stream, without one).
 */
export function statusText(
  name: 'rolloutStatus' | 'otaStatus',
  code: string,
  apiLabel?: string | null,
): string {
  if (apiLabel && lang.value === apiLang()) return apiLabel
  return (lang.value === 'en' ? enEnums : zhEnums)[name][code] ?? apiLabel ?? code
}

/** Bytes as a person reads them: 1023 B, 97.7 KiB, 12.0 MiB, 1.5 GiB. */
export function sizeText(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`
  const units = ['KiB', 'MiB', 'GiB', 'TiB']
  let v = bytes / 1024
  let i = 0
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024
    i++
  }
  return `${v.toFixed(1)} ${units[i]}`
}

/** A rollout's devices done with it (updated, failed, timed out, canceled) and their share of the total in %. */
export function finishedShare(r: Pick<RolloutWire, 'total' | 'counts'>) {
  const done = FINISHED_STATES.reduce((n, s) => n + (r.counts[s] ?? 0), 0)
  const pct = r.total > 0 ? Math.floor((done * 100) / r.total) : 0
  return { done, pct }
}

/** Who a rollout is for: its group's name, the whole product, or a number of devices. */
export function targetText(r: Pick<RolloutWire, 'target' | 'groupName' | 'groupID' | 'total'>) {
  const w = fww()
  if (r.target === 'group') return r.groupName ?? r.groupID ?? '—'
  if (r.target === 'product') return w.wholeProductShort
  return w.devicesTarget(r.total)
}

/** A rollout's name: its package's version and its target (`2.0.0 → Lobby`). */
export const rolloutName = (r: Parameters<typeof targetText>[0] & Pick<RolloutWire, 'version'>) =>
  fww().rolloutOf(r.version, targetText(r))
