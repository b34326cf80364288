-- Files an asynchronous task produced (the CSV of devices_export), downloadable by the task's tenant.
CREATE TABLE task_files (
  task_id TEXT PRIMARY KEY REFERENCES tasks(task_id),
  tenant_id TEXT NOT NULL,
  file_name TEXT NOT NULL,
  content_type TEXT NOT NULL,
  content TEXT NOT NULL,
  create_at INTEGER NOT NULL
);
