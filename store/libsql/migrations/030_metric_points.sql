-- The data points a formula metric reads (its expressions' symbols), written in the same batch as the metric,
-- so that a data point a formula uses cannot be deleted or have its dataPointID changed under it.
CREATE TABLE metric_points (
  metric_int_id INTEGER NOT NULL REFERENCES metrics(id),
  data_point_int_id INTEGER NOT NULL REFERENCES data_points(id),
  PRIMARY KEY (metric_int_id, data_point_int_id)
);
CREATE INDEX metric_points_point ON metric_points (data_point_int_id);
