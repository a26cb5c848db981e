import type { Migration } from 'kysely';
import * as m0001 from './0001_foundation.js';
import * as m0002 from './0002_outbound.js';
import * as m0003 from './0003_inbound.js';
import * as m0004 from './0004_webhooks.js';
import * as m0005 from './0005_resources.js';
import * as m0006 from './0006_connected_apps.js';
import * as m0007 from './0007_sent_recipients.js';
import * as m0008 from './0008_config_mode.js';
import * as m0009 from './0009_threads_by_activity.js';
import * as m0010 from './0010_extraction_truncated.js';
import * as m0011 from './0011_search_and_web.js';
import * as m0012 from './0012_retention.js';
import * as m0014 from './0014_cluster.js';
import * as m0015 from './0015_allow_mode.js';
import * as m0017 from './0017_inbound_queue.js';
import * as m0018 from './0018_blob_chunks.js';
import * as m0023 from './0023_trusted_network.js';
import * as m0026 from './0026_table_versions.js';
import * as m0027 from './0027_search_index_queue.js';
import * as m0028 from './0028_hot_path_indexes.js';
import * as m0029 from './0029_thread_index_prefixes.js';
import * as m0030 from './0030_list_indexes.js';
import * as m0031 from './0031_filter_indexes.js';
import * as m0033 from './0033_request_log_batches.js';
import * as m0035 from './0035_sent_attachment_blobs.js';
import * as m0036 from './0036_search_keys_in_list_order.js';

/** Listed in code (not read from a folder) so they survive bundling. Order is by name. */
export const migrations: Record<string, Migration> = {
  '0001_foundation': m0001,
  '0002_outbound': m0002,
  '0003_inbound': m0003,
  '0004_webhooks': m0004,
  '0005_resources': m0005,
  '0006_connected_apps': m0006,
  '0007_sent_recipients': m0007,
  '0008_config_mode': m0008,
  '0009_threads_by_activity': m0009,
  '0010_extraction_truncated': m0010,
  '0011_search_and_web': m0011,
  '0012_retention': m0012,
  '0014_cluster': m0014,
  '0015_allow_mode': m0015,
  '0017_inbound_queue': m0017,
  '0018_blob_chunks': m0018,
  '0023_trusted_network': m0023,
  '0026_table_versions': m0026,
  '0027_search_index_queue': m0027,
  '0028_hot_path_indexes': m0028,
  '0029_thread_index_prefixes': m0029,
  '0030_list_indexes': m0030,
  '0031_filter_indexes': m0031,
  '0033_request_log_batches': m0033,
  '0035_sent_attachment_blobs': m0035,
  '0036_search_keys_in_list_order': m0036,
};
