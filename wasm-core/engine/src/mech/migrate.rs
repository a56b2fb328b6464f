//! Page migration: `unmap_and_move` unmaps a page through the reverse map (migration
//! entries), copies it and maps the copy; faults on a migration entry wait for it.
//! NUMA balancing drives it today; compaction will.

use crate::listings as l;
use crate::registry::{FunctionListings, Mechanism, ViewDef};

crate::frames! { Migrate;
    /// `unmap_and_move`.
    UnmapAndMove(crate::mm::migrate::UnmapAndMove) => "unmap_and_move",
    /// `remove_migration_ptes`.
    RemoveMigrationPtes(crate::mm::migrate::RemoveMigrationPtes) => "remove_migration_ptes",
}

crate::counters! { Migrate;
    /// `pgmigrate_success`: pages `migrate_pages` moved.
    kernel PGMIGRATE_SUCCESS => "pgmigrate_success",
    /// `pgmigrate_fail`: pages `migrate_pages` gave up on.
    kernel PGMIGRATE_FAIL => "pgmigrate_fail",
    /// Model only: migrations that failed to isolate the page (already isolated, node full).
    model MIGRATE_ISOLATE_FAIL => "migrate_isolate_fail",
}

crate::costs! { Migrate;
    /// `isolate_lru_page` under the LRU lock.
    ISOLATE_NS => "isolate_ns" = 200,
    /// Copying one 4 KiB page.
    COPY_PAGE_NS => "copy_page_ns" = 1500,
    /// Ending a migration: unlock, put the new page on the LRU, free or put back the old one.
    MIGRATE_FINISH_NS => "migrate_finish_ns" = 50,
    /// A filesystem's `migratepage` refusing a page (`fallback_migrate_page` on a dirty page).
    MIGRATE_REFUSE_NS => "migrate_refuse_ns" = 50,
}

/// Event kinds.
pub mod ev {
    crate::events! { Migrate;
        /// Page isolated from the LRU (or not).
        ISOLATE => "isolate", Migration,
        /// A migration entry was installed.
        MIGRATION_ENTRY => "migration_entry", Migration,
        /// Page contents copied to the new page.
        MIGRATE_COPY => "migrate_copy", Migration,
        /// Migration entries replaced by real PTEs.
        REMOVE_MIGRATION_PTES => "remove_migration_ptes", Migration,
        /// Migration finished successfully.
        MIGRATE_DONE => "migrate_done", Migration,
        /// Migration gave up.
        MIGRATE_FAIL => "migrate_fail", Migration,
        /// A fault found a migration entry and waits for the page.
        MIGRATION_WAIT => "migration_wait", Migration,
    }
}

/// Page migration's declaration.
pub const MECHANISM: Mechanism = Mechanism {
    id: "migrate",
    title: "Page migration: unmap through the rmap, copy, remap",
    counters: COUNTERS,
    costs: COSTS,
    events: ev::EVENTS,
    listings: &[
        FunctionListings::single(&[l::UNMAP_AND_MOVE]),
        FunctionListings::single(&[l::REMOVE_MIGRATION_PTES]),
    ],
    functions: FRAME_FUNCTIONS,
    views: &[ViewDef {
        id: "migrate",
        title: "Page migration",
        plots: &["pgmigrate_success", "pgmigrate_fail"],
        state: None,
    }],
    ..Mechanism::EMPTY
};
