-- DeviceCloud metadata schema. Times are epoch milliseconds (INTEGER); JSON values are TEXT.
-- Every tenant-owned table carries tenant_id; every query filters on it.

CREATE TABLE settings (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
);

CREATE TABLE tenants (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  tenant_id TEXT NOT NULL UNIQUE,
  tenant_name TEXT NOT NULL,
  create_at INTEGER NOT NULL
);

CREATE TABLE users (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  tenant_id TEXT NOT NULL REFERENCES tenants(tenant_id),
  username TEXT NOT NULL,
  email TEXT NOT NULL UNIQUE COLLATE NOCASE,
  password_hash TEXT NOT NULL,
  role TEXT NOT NULL CHECK (role IN ('admin', 'user', 'viewer')),
  create_at INTEGER NOT NULL,
  update_at INTEGER
);
CREATE INDEX users_tenant ON users (tenant_id);

CREATE TABLE applications (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  tenant_id TEXT NOT NULL REFERENCES tenants(tenant_id),
  app_name TEXT NOT NULL,
  app_id TEXT NOT NULL UNIQUE,
  token_hash TEXT NOT NULL,
  role TEXT NOT NULL CHECK (role IN ('admin', 'user', 'viewer')),
  expired_at INTEGER,
  user_int_id INTEGER,
  create_at INTEGER NOT NULL,
  update_at INTEGER
);
CREATE INDEX applications_tenant ON applications (tenant_id);

CREATE TABLE products (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  tenant_id TEXT NOT NULL,
  product_id TEXT NOT NULL,
  product_name TEXT NOT NULL,
  description TEXT,
  cloud_protocol INTEGER NOT NULL,
  user_int_id INTEGER,
  create_at INTEGER NOT NULL,
  update_at INTEGER,
  UNIQUE (tenant_id, product_id),
  UNIQUE (tenant_id, product_name)
);

-- Devices and gateways share one table (kind), so credentials, logs and bindings work alike for both.
CREATE TABLE devices (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  tenant_id TEXT NOT NULL,
  kind TEXT NOT NULL DEFAULT 'device' CHECK (kind IN ('device', 'gateway')),
  product_int_id INTEGER NOT NULL REFERENCES products(id),
  device_id TEXT NOT NULL UNIQUE,
  device_name TEXT NOT NULL,
  device_username TEXT NOT NULL,
  token TEXT NOT NULL,
  auth_type INTEGER,
  blocked INTEGER NOT NULL DEFAULT 0,
  device_status INTEGER NOT NULL DEFAULT 0,
  device_type INTEGER,
  up_link_system INTEGER,
  gateway_int_id INTEGER REFERENCES devices(id),
  parent_device_int_id INTEGER REFERENCES devices(id),
  mod_bus_index INTEGER,
  carrier INTEGER,
  physical_network INTEGER,
  imei TEXT,
  imsi TEXT,
  auto_sub INTEGER,
  manufacturer TEXT,
  serial_number TEXT,
  soft_version TEXT,
  hardware_version TEXT,
  description TEXT,
  device_console_ip TEXT,
  device_console_port INTEGER,
  device_console_username TEXT,
  latitude REAL,
  longitude REAL,
  location TEXT,
  lora TEXT,
  meta_data TEXT,
  scopes TEXT,
  gateway_protocol INTEGER,
  up_link_network INTEGER,
  up_link_protocol INTEGER,
  mac TEXT,
  client_ip TEXT,
  connected_at INTEGER,
  keep_alive INTEGER,
  user_int_id INTEGER,
  create_at INTEGER NOT NULL,
  update_at INTEGER,
  UNIQUE (tenant_id, kind, device_name)
);
CREATE INDEX devices_tenant_kind ON devices (tenant_id, kind, create_at);
CREATE INDEX devices_product ON devices (product_int_id);
CREATE INDEX devices_gateway ON devices (gateway_int_id);
CREATE INDEX devices_parent ON devices (parent_device_int_id);
CREATE INDEX devices_username ON devices (device_username);

CREATE TABLE groups (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  tenant_id TEXT NOT NULL,
  group_id TEXT NOT NULL,
  group_name TEXT NOT NULL,
  description TEXT,
  product_int_id INTEGER NOT NULL REFERENCES products(id),
  user_int_id INTEGER,
  create_at INTEGER NOT NULL,
  update_at INTEGER,
  UNIQUE (tenant_id, group_id),
  UNIQUE (tenant_id, group_name)
);
CREATE INDEX groups_product ON groups (product_int_id);

CREATE TABLE group_devices (
  group_int_id INTEGER NOT NULL REFERENCES groups(id),
  device_int_id INTEGER NOT NULL REFERENCES devices(id),
  create_at INTEGER NOT NULL,
  PRIMARY KEY (group_int_id, device_int_id)
);
CREATE INDEX group_devices_device ON group_devices (device_int_id);

CREATE TABLE data_points (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  tenant_id TEXT NOT NULL,
  product_int_id INTEGER NOT NULL REFERENCES products(id),
  data_point_id TEXT NOT NULL,
  data_point_name TEXT NOT NULL,
  point_data_type INTEGER NOT NULL,
  data_trans_type INTEGER NOT NULL,
  unit_name TEXT,
  unit_symbol TEXT,
  upper_limit REAL,
  lower_limit REAL,
  data_step REAL,
  binary_size INTEGER,
  fault_value TEXT,
  is_discard INTEGER,
  enum TEXT,
  is_location_type INTEGER,
  location_type INTEGER,
  register_addr TEXT,
  detail TEXT,
  user_int_id INTEGER,
  create_at INTEGER NOT NULL,
  update_at INTEGER,
  UNIQUE (product_int_id, data_point_id),
  UNIQUE (product_int_id, data_point_name)
);
CREATE INDEX data_points_tenant ON data_points (tenant_id, create_at);

CREATE TABLE data_streams (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  tenant_id TEXT NOT NULL,
  product_int_id INTEGER NOT NULL REFERENCES products(id),
  stream_name TEXT NOT NULL,
  stream_type INTEGER NOT NULL,
  stream_data_type INTEGER NOT NULL,
  topic TEXT NOT NULL,
  detail TEXT,
  user_int_id INTEGER,
  create_at INTEGER NOT NULL,
  update_at INTEGER,
  UNIQUE (product_int_id, topic),
  UNIQUE (product_int_id, stream_name)
);
CREATE INDEX data_streams_tenant ON data_streams (tenant_id, create_at);

CREATE TABLE stream_points (
  stream_int_id INTEGER NOT NULL REFERENCES data_streams(id),
  data_point_int_id INTEGER NOT NULL REFERENCES data_points(id),
  PRIMARY KEY (stream_int_id, data_point_int_id)
);
CREATE INDEX stream_points_point ON stream_points (data_point_int_id);

CREATE TABLE metrics (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  tenant_id TEXT NOT NULL,
  product_int_id INTEGER NOT NULL REFERENCES products(id),
  metric_name TEXT NOT NULL,
  metric_type INTEGER NOT NULL,
  data_point_int_id INTEGER NOT NULL REFERENCES data_points(id),
  aggregate_type INTEGER,
  aggregate_data INTEGER,
  chart_type INTEGER,
  expressions TEXT,
  expressions_label TEXT,
  is_show INTEGER NOT NULL DEFAULT 1,
  product_item_int_id INTEGER,
  remark TEXT,
  data_stream_int_id INTEGER REFERENCES data_streams(id),
  user_int_id INTEGER,
  create_at INTEGER NOT NULL,
  update_at INTEGER,
  UNIQUE (product_int_id, metric_name)
);
CREATE INDEX metrics_tenant ON metrics (tenant_id, create_at);
CREATE INDEX metrics_point ON metrics (data_point_int_id);

CREATE TABLE product_resources (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  tenant_id TEXT NOT NULL,
  product_int_id INTEGER NOT NULL REFERENCES products(id),
  code_value TEXT NOT NULL,
  data_point_int_id INTEGER REFERENCES data_points(id),
  product_item_int_id INTEGER,
  item_name TEXT,
  user_int_id INTEGER,
  create_at INTEGER NOT NULL,
  update_at INTEGER
);
CREATE INDEX product_resources_tenant ON product_resources (tenant_id, create_at);

CREATE TABLE app_templates (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  tenant_id TEXT NOT NULL,
  product_int_id INTEGER NOT NULL REFERENCES products(id),
  template_name TEXT NOT NULL,
  template_type INTEGER NOT NULL,
  topic TEXT,
  data_point_int_id INTEGER REFERENCES data_points(id),
  data_stream_int_id INTEGER REFERENCES data_streams(id),
  data_trans_type INTEGER,
  enum TEXT,
  places TEXT,
  instance_id TEXT,
  item_id TEXT,
  item_name TEXT,
  item_operations TEXT,
  object_id TEXT,
  product_item_int_id INTEGER,
  default_values TEXT,
  user_int_id INTEGER,
  create_at INTEGER NOT NULL,
  update_at INTEGER
);
CREATE INDEX app_templates_tenant ON app_templates (tenant_id, create_at);

CREATE TABLE policies (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  tenant_id TEXT NOT NULL,
  name TEXT NOT NULL,
  topic TEXT NOT NULL,
  access INTEGER NOT NULL,
  allow INTEGER NOT NULL,
  description TEXT,
  user_int_id INTEGER,
  create_at INTEGER NOT NULL,
  update_at INTEGER,
  UNIQUE (tenant_id, name)
);

CREATE TABLE policy_devices (
  policy_int_id INTEGER NOT NULL REFERENCES policies(id),
  device_int_id INTEGER NOT NULL REFERENCES devices(id),
  create_at INTEGER NOT NULL,
  PRIMARY KEY (policy_int_id, device_int_id)
);
CREATE INDEX policy_devices_device ON policy_devices (device_int_id);

CREATE TABLE tenant_cas (
  tenant_id TEXT PRIMARY KEY,
  cert TEXT NOT NULL,
  key TEXT NOT NULL,
  create_at INTEGER NOT NULL
);

CREATE TABLE certs (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  tenant_id TEXT NOT NULL,
  name TEXT NOT NULL,
  enable INTEGER NOT NULL,
  cn TEXT NOT NULL,
  cert TEXT NOT NULL,
  key TEXT NOT NULL,
  root TEXT NOT NULL,
  user_int_id INTEGER,
  create_at INTEGER NOT NULL,
  update_at INTEGER,
  UNIQUE (tenant_id, name)
);
CREATE INDEX certs_cn ON certs (cn);

CREATE TABLE cert_devices (
  cert_int_id INTEGER NOT NULL REFERENCES certs(id),
  device_int_id INTEGER NOT NULL REFERENCES devices(id),
  create_at INTEGER NOT NULL,
  PRIMARY KEY (cert_int_id, device_int_id)
);
CREATE INDEX cert_devices_device ON cert_devices (device_int_id);

CREATE TABLE device_subscriptions (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  tenant_id TEXT NOT NULL,
  device_int_id INTEGER NOT NULL REFERENCES devices(id),
  topic TEXT NOT NULL,
  qos INTEGER NOT NULL DEFAULT 1,
  create_at INTEGER NOT NULL,
  update_at INTEGER,
  UNIQUE (device_int_id, topic)
);

CREATE TABLE tasks (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  tenant_id TEXT NOT NULL,
  task_id TEXT NOT NULL UNIQUE,
  task_name TEXT NOT NULL,
  status INTEGER NOT NULL DEFAULT 1,
  progress INTEGER NOT NULL DEFAULT 0,
  message TEXT,
  result TEXT,
  user_int_id INTEGER,
  create_at INTEGER NOT NULL,
  update_at INTEGER
);

-- Logs keep the device's identity as it was (device_id, device_name), so they outlive the device record.
CREATE TABLE connect_logs (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  tenant_id TEXT,
  device_int_id INTEGER,
  device_id TEXT NOT NULL,
  device_name TEXT,
  connect_status INTEGER NOT NULL,
  ip TEXT,
  keep_alive INTEGER,
  msg_time INTEGER NOT NULL,
  create_at INTEGER NOT NULL,
  update_at INTEGER
);
CREATE INDEX connect_logs_tenant ON connect_logs (tenant_id, msg_time);
CREATE INDEX connect_logs_device ON connect_logs (device_int_id, msg_time);

CREATE TABLE events (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  tenant_id TEXT NOT NULL,
  device_int_id INTEGER,
  device_id TEXT NOT NULL,
  device_name TEXT,
  product_int_id INTEGER,
  topic TEXT,
  payload TEXT,
  ip TEXT,
  status INTEGER NOT NULL DEFAULT 1,
  reason TEXT,
  msg_time INTEGER NOT NULL,
  create_at INTEGER NOT NULL,
  update_at INTEGER
);
CREATE INDEX events_tenant ON events (tenant_id, msg_time);
CREATE INDEX events_device ON events (device_int_id, msg_time);

CREATE TABLE control_logs (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  tenant_id TEXT NOT NULL,
  device_int_id INTEGER,
  device_id TEXT,
  device_name TEXT,
  group_int_id INTEGER,
  group_id TEXT,
  group_name TEXT,
  task_id TEXT,
  topic TEXT,
  payload TEXT,
  publish_status INTEGER NOT NULL,
  publish_user TEXT,
  user_int_id INTEGER,
  msg_time INTEGER NOT NULL,
  create_at INTEGER NOT NULL,
  update_at INTEGER
);
CREATE INDEX control_logs_tenant ON control_logs (tenant_id, msg_time);
CREATE INDEX control_logs_device ON control_logs (device_int_id, msg_time);
CREATE INDEX control_logs_group ON control_logs (group_int_id, msg_time);
CREATE INDEX control_logs_task ON control_logs (task_id);

CREATE TABLE current_alerts (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  tenant_id TEXT NOT NULL,
  alert_name TEXT NOT NULL,
  alert_content TEXT,
  alert_severity INTEGER NOT NULL,
  alert_times INTEGER NOT NULL DEFAULT 1,
  alert_detail TEXT,
  device_int_id INTEGER,
  device_id TEXT,
  device_name TEXT,
  start_time INTEGER NOT NULL,
  create_at INTEGER NOT NULL,
  update_at INTEGER
);
CREATE INDEX current_alerts_tenant ON current_alerts (tenant_id, create_at);

CREATE TABLE history_alerts (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  tenant_id TEXT NOT NULL,
  alert_name TEXT NOT NULL,
  alert_content TEXT,
  alert_severity INTEGER NOT NULL,
  alert_times INTEGER NOT NULL DEFAULT 1,
  alert_detail TEXT,
  device_int_id INTEGER,
  device_id TEXT,
  device_name TEXT,
  start_time INTEGER NOT NULL,
  end_time INTEGER,
  create_at INTEGER NOT NULL,
  update_at INTEGER
);
CREATE INDEX history_alerts_tenant ON history_alerts (tenant_id, create_at);
