/** The console's words in English and Chinese; the browser's language picks one, the Language control another. */
import { signal } from '@preact/signals'

export type Lang = 'en' | 'zh'

const en = {
  appName: 'DeviceCloud',
  email: 'Email',
  password: 'Password',
  signIn: 'Sign in',
  signOut: 'Sign out',
  signInFailed: 'Sign-in refused: check email and password.',
  language: 'Language',
  overview: 'Overview',
  devices: 'Devices',
  products: 'Products',
  groups: 'Groups',
  alerts: 'Alerts',
  alertRules: 'Alert rules',
  webhooks: 'Webhooks',
  schedules: 'Schedules',
  firmware: 'Firmware',
  searchDevices: 'Search devices',
  name: 'Name',
  product: 'Product',
  status: 'Status',
  lastSeen: 'Last seen',
  online: 'Online',
  offline: 'Offline',
  previous: 'Previous',
  next: 'Next',
  pageOf: (page: number, pages: number, count: number) => `Page ${page} of ${pages} (${count})`,
  loading: 'Loading…',
  loadFailed: 'This page could not be loaded.',
  retry: 'Retry',
  none: 'Nothing here.',
  notFound: 'Not found.',
  info: 'Info',
  latestValues: 'Latest values',
  dataPoint: 'Data point',
  value: 'Value',
  time: 'Time',
  deviceID: 'Device ID',
  protocol: 'Protocol',
  created: 'Created',
  gateways: 'Gateways',
  onlineNow: 'Online now',
  blocked: 'Blocked',
  messagesPerMinute: 'Messages per minute',
  openAlerts: 'Open alerts',
  total: 'Total',
  severity: { '1': 'Urgent', '2': 'Major', '3': 'Minor', '4': 'Warning' },
  severityLabel: 'Severity',
  all: 'All',
  searchDeviceName: 'Search device name',
  currentAlerts: 'Current',
  history: 'History',
  deviceName: 'Device',
  alertName: 'Alert',
  startTime: 'Started',
  endTime: 'Ended',
  times: 'Times',
  acknowledged: 'Acknowledged',
  actions: 'Actions',
  acknowledge: 'Acknowledge',
  clear: 'Clear',
  yes: 'Yes',
  no: 'No',
  // device page: charts and console
  charts: 'Charts',
  range: 'Range',
  console: 'Console',
  payload: 'Payload',
  topic: 'Topic',
  qos: 'QoS',
  timeoutS: 'Timeout (s)',
  ttlS: 'TTL (s)',
  sendCommand: 'Send command',
  commandStatus: 'Command status',
  noTemplates: 'No app templates.',
}

const zh: typeof en = {
  appName: 'DeviceCloud',
  email: '邮箱',
  password: '密码',
  signIn: '登录',
  signOut: '退出登录',
  signInFailed: '登录失败：请检查邮箱和密码。',
  language: '语言',
  overview: '概览',
  devices: '设备',
  products: '产品',
  groups: '分组',
  alerts: '告警',
  alertRules: '告警规则',
  webhooks: 'Webhooks',
  schedules: '定时任务',
  firmware: '固件',
  searchDevices: '搜索设备',
  name: '名称',
  product: '产品',
  status: '状态',
  lastSeen: '最后在线',
  online: '在线',
  offline: '离线',
  previous: '上一页',
  next: '下一页',
  pageOf: (page: number, pages: number, count: number) => `第 ${page} / ${pages} 页（共 ${count}）`,
  loading: '加载中…',
  loadFailed: '页面加载失败。',
  retry: '重试',
  none: '暂无数据。',
  notFound: '未找到。',
  info: '信息',
  latestValues: '最新数据',
  dataPoint: '功能点',
  value: '值',
  time: '时间',
  deviceID: '设备 ID',
  protocol: '协议',
  created: '创建时间',
  gateways: '网关',
  onlineNow: '当前在线',
  blocked: '已禁用',
  messagesPerMinute: '每分钟消息数',
  openAlerts: '未处理告警',
  total: '合计',
  severity: { '1': '紧急', '2': '重要', '3': '次要', '4': '警告' },
  severityLabel: '告警级别',
  all: '全部',
  searchDeviceName: '搜索设备名称',
  currentAlerts: '当前告警',
  history: '历史告警',
  deviceName: '设备',
  alertName: '告警',
  startTime: '开始时间',
  endTime: '结束时间',
  times: '次数',
  acknowledged: '已确认',
  actions: '操作',
  acknowledge: '确认',
  clear: '处理',
  yes: '是',
  no: '否',
  // device page: charts and console
  charts: '图表',
  range: '时间范围',
  console: '控制台',
  payload: '指令内容',
  topic: '主题',
  qos: 'QoS',
  timeoutS: '超时（秒）',
  ttlS: '有效期（秒）',
  sendCommand: '发送指令',
  commandStatus: '指令状态',
  noTemplates: '暂无应用模板。',
}

const LANG_KEY = 'devicecloud.lang'

/** English for `en*`, Chinese otherwise. */
export const browserLang = (language: string): Lang =>
  language.toLowerCase().startsWith('en') ? 'en' : 'zh'

const saved = localStorage.getItem(LANG_KEY)
export const lang = signal<Lang>(
  saved === 'en' || saved === 'zh' ? saved : browserLang(navigator.language),
)

export function setLang(l: Lang) {
  localStorage.setItem(LANG_KEY, l)
  lang.value = l
  document.documentElement.lang = l === 'en' ? 'en' : 'zh-CN'
}

/** The strings of the current language (read inside a component: it re-renders on a switch). */
export const t = () => (lang.value === 'en' ? en : zh)

/**
 * A page's own words, beside the page (so that pages do not all edit this file): `const w = words({...en}, {...zh})`
 * then `w().title` inside a component. The Chinese table must have every English key.
 */
export function words<T extends Record<string, unknown>>(
  enWords: T,
  zhWords: { [K in keyof T]: T[K] },
) {
  return (): T => (lang.value === 'en' ? enWords : zhWords)
}
