-- Retention: processed webhook deliveries are deleted after a while, so
-- find them by age without scanning the pending ones.
CREATE INDEX deliveries_done ON deliveries (received_at) WHERE done = 1;
