/**
 * Every enumeration of the API with its zh and en labels.
 */
export const enumerations = {
  cloudProtocol: {
    1: { zh: 'MQTT', en: 'MQTT' },
    2: { zh: 'CoAP', en: 'CoAP' },
    3: { zh: 'LwM2M', en: 'LwM2M' },
    4: { zh: 'LoRa', en: 'LoRa' },
    5: { zh: 'HTTP', en: 'HTTP' },
    6: { zh: 'WebSocket', en: 'WebSocket' },
    7: { zh: 'Modbus', en: 'Modbus' },
  },
  gatewayProtocol: {
    1: { zh: 'MQTT', en: 'MQTT' },
    2: { zh: 'CoAP', en: 'CoAP' },
    3: { zh: 'LwM2M', en: 'LwM2M' },
    4: { zh: 'LoRa', en: 'LoRa' },
    5: { zh: 'HTTP', en: 'HTTP' },
    6: { zh: 'WebSocket', en: 'WebSocket' },
    7: { zh: 'Modbus', en: 'Modbus' },
  },
  upLinkProtocol: {
    1: { zh: 'MQTT', en: 'MQTT' },
    2: { zh: 'CoAP', en: 'CoAP' },
    3: { zh: 'LwM2M', en: 'LwM2M' },
    4: { zh: 'LoRa', en: 'LoRa' },
    5: { zh: 'HTTP', en: 'HTTP' },
    6: { zh: 'WebSocket', en: 'WebSocket' },
    7: { zh: 'Modbus', en: 'Modbus' },
  },
  authType: {
    1: { zh: 'Token', en: 'Token' },
    2: { zh: '证书', en: 'Certificate' },
  },
  blocked: {
    0: { zh: '允许访问', en: 'Access allowed' },
    1: { zh: '禁止访问', en: 'Access forbidden' },
  },
  carrier: {
    1: { zh: '中国电信', en: 'China Telecom' },
    2: { zh: '中国移动', en: 'China Mobile' },
    3: { zh: '中国联通', en: 'China Unicom' },
    4: { zh: '其他', en: 'Other' },
  },
  physicalNetwork: {
    1: { zh: 'Wi-Fi', en: 'WIFI' },
    2: { zh: '2G', en: '2G' },
    3: { zh: '3G', en: '3G' },
    4: { zh: '4G', en: '4G' },
    5: { zh: 'NB-IoT', en: 'NB-IOT' },
    6: { zh: 'BlueTooth', en: 'BlueTooth' },
  },
  deviceStatus: {
    0: { zh: '离线', en: 'Offline' },
    1: { zh: '在线', en: 'Online' },
    2: { zh: '休眠', en: 'Sleeping' },
  },
  upLinkSystem: {
    1: { zh: '云', en: 'Cloud' },
    2: { zh: '网关', en: 'Gateway' },
    3: { zh: '设备', en: 'Device' },
  },
  deviceType: {
    1: { zh: '终端', en: 'Terminal' },
    3: { zh: '智能手机', en: 'Smartphone' },
  },
  deviceTypeVariantB: {
    0: { zh: '终端', en: 'Terminal' },
    1: { zh: '网关', en: 'Gateway' },
    2: { zh: '智能手机', en: 'Smartphone' },
  },
  publishStatus: {
    0: { zh: '下发失败', en: 'Failed to issue' },
    1: { zh: '已下发', en: 'Issued' },
    2: { zh: '已到达', en: 'Sent successfully' },
    3: { zh: '无需回执', en: 'No receipt needed' },
  },
  upLinkNetwork: {
    1: { zh: '2G', en: '2G' },
    2: { zh: '3G', en: '3G' },
    3: { zh: '4G', en: '4G' },
    4: { zh: 'Wi-Fi', en: 'Wi-Fi' },
    5: { zh: 'NB-IoT', en: 'NB-IoT' },
  },
  streamType: {
    1: { zh: '设备数据上报', en: 'Device data report' },
    2: { zh: '设备数据下发', en: 'Device data issue' },
    3: { zh: '网关数据上报', en: 'Gateway data report' },
    4: { zh: '网关数据下发', en: 'Gateway data issue' },
  },
  streamDataType: {
    1: { zh: 'JSON', en: 'JSON' },
    2: { zh: '二进制', en: 'Binary' },
  },
  dataTransType: {
    1: { zh: '只上报', en: 'Report only' },
    2: { zh: '只下发', en: 'Issue only' },
    3: { zh: '可上报可下发', en: 'Report and issue' },
  },
  aggregateType: {
    1: { zh: '最大值', en: 'Maximum' },
    2: { zh: '最小值', en: 'Minimum' },
    3: { zh: '平均值', en: 'Average' },
    4: { zh: '累计值', en: 'Accumulated' },
  },
  aggregateData: {
    1: { zh: '公式值', en: 'Formula value' },
    2: { zh: '原始值', en: 'Original value' },
  },
  chartType: {
    1: { zh: '折线图', en: 'Line chart' },
    2: { zh: '柱状图', en: 'Bar chart' },
  },
  metricType: {
    1: { zh: '公式指标', en: 'Formula metric' },
    2: { zh: '聚合指标', en: 'Aggregate metric' },
  },
  access: {
    0: { zh: '发布', en: 'Publish' },
    1: { zh: '订阅', en: 'Subscribe' },
    2: { zh: '发布和订阅', en: 'Publish and subscribe' },
  },
  allow: {
    0: { zh: '拒绝', en: 'Deny' },
    1: { zh: '允许', en: 'Allow' },
  },
  certEnable: {
    0: { zh: '不可用', en: 'Unusable' },
    1: { zh: '可用', en: 'Usable' },
  },
  userEnable: {
    0: { zh: '已停用', en: 'Disabled' },
    1: { zh: '已启用', en: 'Enabled' },
  },
  autoSub: {
    0: { zh: '关闭', en: 'Off' },
    1: { zh: '开启', en: 'On' },
  },
  alertSeverity: {
    1: { zh: '紧急', en: 'Urgent' },
    2: { zh: '重要', en: 'Major' },
    3: { zh: '次要', en: 'Minor' },
    4: { zh: '警告', en: 'Warning' },
  },
  templateType: {
    1: { zh: '开关', en: 'Switch' },
    2: { zh: '枚举', en: 'Enum' },
    3: { zh: '数值', en: 'Numeric' },
    4: { zh: '字符串', en: 'String' },
    5: { zh: '布尔', en: 'Boolean' },
    6: { zh: '时间', en: 'Time' },
  },
  connectStatus: {
    0: { zh: '下线', en: 'Offline' },
    1: { zh: '上线', en: 'Online' },
    2: { zh: '认证失败', en: 'Authentication failed' },
  },
  taskStatus: {
    1: { zh: '等待中', en: 'Waiting' },
    2: { zh: '执行中', en: 'Running' },
    3: { zh: '已完成', en: 'Done' },
    4: { zh: '失败', en: 'Failed' },
  },
  scheduleType: {
    1: { zh: '定时执行', en: 'Once at a time' },
    2: { zh: '间隔执行', en: 'Every interval' },
    3: { zh: 'Cron 表达式', en: 'Cron expression' },
  },
  locationType: {
    1: { zh: '经度', en: 'Longitude' },
    2: { zh: '纬度', en: 'Latitude' },
    3: { zh: '海拔', en: 'Altitude' },
  },
  pointDataType: {
    1: { zh: '数值', en: 'Numeric' },
    3: { zh: '字符串', en: 'String' },
    4: { zh: '故障', en: 'Fault' },
    5: { zh: '布尔', en: 'Boolean' },
    6: { zh: '地理位置', en: 'Geolocation' },
    11: { zh: '定长字符串', en: 'Fixed-length string' },
    12: { zh: '变长字符串', en: 'Variable-length string' },
    13: { zh: '定长二进制', en: 'Fixed-length binary' },
    14: { zh: '变长二进制', en: 'Variable-length binary' },
    15: { zh: '有符号整型', en: 'Signed integer' },
    16: { zh: '无符号整型', en: 'Unsigned integer' },
    17: { zh: '单精度浮点型', en: 'Single float' },
    18: { zh: '双精度浮点型', en: 'Double float' },
    19: { zh: '位', en: 'Bit' },
    21: { zh: '有符号长整型', en: 'Signed long' },
    22: { zh: '无符号长整型', en: 'Unsigned long' },
    23: { zh: '布尔', en: 'Boolean' },
    24: { zh: '时间', en: 'Time' },
    25: { zh: '浮点', en: 'Float' },
  },
  commandStatus: {
    queued: { zh: '排队中', en: 'Queued' },
    sent: { zh: '已下发', en: 'Sent' },
    delivered: { zh: '已送达', en: 'Delivered' },
    succeeded: { zh: '执行成功', en: 'Succeeded' },
    failed: { zh: '执行失败', en: 'Failed' },
    timed_out: { zh: '超时', en: 'Timed out' },
    expired: { zh: '已过期', en: 'Expired' },
    canceled: { zh: '已取消', en: 'Canceled' },
    unsent: { zh: '未下发', en: 'Not sent' },
    partial: { zh: '部分成功', en: 'Partial' },
  },
  rolloutStatus: {
    running: { zh: '进行中', en: 'Running' },
    paused: { zh: '已暂停', en: 'Paused' },
    succeeded: { zh: '全部成功', en: 'Succeeded' },
    partial: { zh: '部分成功', en: 'Partial' },
    failed: { zh: '全部失败', en: 'Failed' },
    aborted: { zh: '已中止', en: 'Aborted' },
    canceled: { zh: '已取消', en: 'Canceled' },
  },
  otaStatus: {
    queued: { zh: '排队中', en: 'Queued' },
    notified: { zh: '已通知', en: 'Notified' },
    downloading: { zh: '下载中', en: 'Downloading' },
    downloaded: { zh: '已下载', en: 'Downloaded' },
    verifying: { zh: '校验中', en: 'Verifying' },
    updating: { zh: '升级中', en: 'Updating' },
    updated: { zh: '升级成功', en: 'Updated' },
    failed: { zh: '升级失败', en: 'Failed' },
    timed_out: { zh: '超时', en: 'Timed out' },
    canceled: { zh: '已取消', en: 'Canceled' },
  },
} as const satisfies Record<string, Record<string | number, { zh: string; en: string }>>

export type EnumName = keyof typeof enumerations

/** The integer codes of one enumeration, e.g. codes('cloudProtocol') → [1..7]. */
export function codes(name: EnumName): number[] {
  return Object.keys(enumerations[name]).map(Number)
}

/** Every code of one enumeration with its labels, e.g. `1 Urgent (紧急), 2 Major (重要), …`. */
export function enumMeanings(name: EnumName): string {
  const table = enumerations[name] as Record<string, { zh: string; en: string }>
  return Object.entries(table)
    .map(([code, { en, zh }]) => (en === zh ? `${code} ${en}` : `${code} ${en} (${zh})`))
    .join(', ')
}

/** The OpenAPI annotations of a field holding codes of `name`: the meanings, and the English names in order. */
export function enumDoc(name: EnumName) {
  const table = enumerations[name] as Record<string, { zh: string; en: string }>
  return {
    description: `${name}: ${enumMeanings(name)}`,
    'x-enumNames': Object.values(table).map((l) => l.en),
  }
}
