//! The machine: NUMA nodes, their CPUs and memory, and the node distance matrix
//! (`numactl --hardware` semantics: 10 = local).

/// CPU number.
pub type CpuId = u16;
/// NUMA node number.
pub type NodeId = u8;

/// One NUMA node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Node {
    /// Node id.
    pub id: NodeId,
    /// CPUs on the node.
    pub cpus: Vec<CpuId>,
    /// Frames (4 KiB pages) the node owns.
    pub mem_pages: u32,
    /// First pfn of the node: it owns `first_pfn .. first_pfn + mem_pages`.
    pub first_pfn: u32,
    /// High watermark in pages: `migrate_balanced_pgdat` refuses a migration target below it.
    pub high_wmark: u32,
    /// The node's zone as a pasted `/proc/zoneinfo` gives it (`[machine] zoneinfo`); `None`:
    /// the page allocator derives watermarks and pageset sizes from `mem_pages`.
    pub zone: Option<PastedZone>,
}

/// What a pasted `/proc/zoneinfo` sets of a node's one zone (see
/// [`crate::zoneinfo::node_zones`]): watermarks in simulated pages, pageset sizes as printed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PastedZone {
    /// `[min, low, high]`.
    pub wmark: [u32; 3],
    /// Pageset `batch`, when printed.
    pub batch: Option<u32>,
    /// Pageset `high_min` (or the fixed `high`), when printed.
    pub high_min: Option<u32>,
    /// Pageset `high_max`, printed or derived from the real zone.
    pub high_max: Option<u32>,
}

/// The whole machine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Topology {
    /// Nodes in id order.
    pub nodes: Vec<Node>,
    /// `distance[a][b]`, 10 on the diagonal.
    pub distance: Vec<Vec<u32>>,
    /// CPU id -> node id.
    pub cpu_node: Vec<NodeId>,
    /// TLB entries per CPU (the model's TLB is fully associative with LRU replacement).
    pub tlb_entries: u32,
}

impl Topology {
    /// Number of CPUs.
    pub fn nr_cpus(&self) -> usize {
        self.cpu_node.len()
    }

    /// Node owning `pfn` (pfns are laid out node after node).
    pub fn pfn_to_nid(&self, pfn: u32) -> NodeId {
        self.nodes
            .iter()
            .find(|n| pfn >= n.first_pfn && pfn < n.first_pfn + n.mem_pages)
            .map_or(0, |n| n.id)
    }

    /// Each node's frames as `(first pfn, end pfn)`, in node order.
    pub fn pfn_ranges(&self) -> Vec<(u32, u32)> {
        self.nodes.iter().map(|n| (n.first_pfn, n.first_pfn + n.mem_pages)).collect()
    }

    /// Total frames.
    pub fn total_pages(&self) -> u32 {
        self.nodes.iter().map(|n| n.mem_pages).sum()
    }

    /// Nodes ordered by distance from `from` (itself first), ties by id: the zonelist order.
    pub fn nodes_by_distance(&self, from: NodeId) -> Vec<NodeId> {
        let mut ids: Vec<NodeId> = self.nodes.iter().map(|n| n.id).collect();
        ids.sort_by_key(|&n| (self.distance[from as usize][n as usize], n));
        ids
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn two_nodes() -> Topology {
        Topology {
            nodes: vec![
                Node {
                    id: 0,
                    cpus: vec![0, 1],
                    mem_pages: 8,
                    first_pfn: 0,
                    high_wmark: 1,
                    zone: None,
                },
                Node {
                    id: 1,
                    cpus: vec![2, 3],
                    mem_pages: 8,
                    first_pfn: 8,
                    high_wmark: 1,
                    zone: None,
                },
            ],
            distance: vec![vec![10, 21], vec![21, 10]],
            cpu_node: vec![0, 0, 1, 1],
            tlb_entries: 8,
        }
    }

    #[test]
    fn pfns_belong_to_the_node_that_owns_their_range() {
        let t = two_nodes();
        assert_eq!(t.pfn_to_nid(0), 0);
        assert_eq!(t.pfn_to_nid(7), 0);
        assert_eq!(t.pfn_to_nid(8), 1);
        assert_eq!(t.total_pages(), 16);
    }

    #[test]
    fn zonelist_starts_at_the_local_node() {
        let t = two_nodes();
        assert_eq!(t.nodes_by_distance(1), vec![1, 0]);
        assert_eq!(t.nodes_by_distance(0), vec![0, 1]);
    }
}
