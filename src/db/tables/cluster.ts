/** Tables added for several daemons on one database (migration 0014_cluster). */

/** One taken slot of a sliding-window rate limit shared by every daemon. */
export interface RateSlotsTable {
  id: string;
  /** What is limited, e.g. `burst:<key id>`. */
  bucket: string;
  at: string;
}

export interface ClusterTables {
  rate_slots: RateSlotsTable;
}

declare module './outbound.js' {
  interface SimulatedRepliesTable {
    /** Set while a daemon delivers the reply; another may take it over once it has passed. */
    lease_until: string | null;
  }
}
