//! The graph's table from a node's id to its place: a hash table of node indexes that hashes and
//! compares the ids the nodes hold, so no id is stored twice (a `HashMap<String, NodeIndex>`
//! kept a second copy of every path: about 80 bytes a node).

use std::hash::BuildHasher;

use hashbrown::{DefaultHashBuilder, HashTable};
use petgraph::stable_graph::{NodeIndex, StableDiGraph};

use crate::node::Node;

type Graph = StableDiGraph<Node, ()>;

#[derive(Debug, Clone, Default)]
pub(crate) struct IdIndex {
    table: HashTable<NodeIndex>,
    hasher: DefaultHashBuilder,
}

impl IdIndex {
    fn hash(&self, id: &str) -> u64 {
        self.hasher.hash_one(id)
    }

    pub(crate) fn reserve(&mut self, graph: &Graph, additional: usize) {
        let hasher = &self.hasher;
        self.table
            .reserve(additional, |&i| hasher.hash_one(graph[i].id.as_str()));
    }

    pub(crate) fn get(&self, graph: &Graph, id: &str) -> Option<NodeIndex> {
        self.table
            .find(self.hash(id), |&i| graph[i].id == id)
            .copied()
    }

    pub(crate) fn contains(&self, graph: &Graph, id: &str) -> bool {
        self.get(graph, id).is_some()
    }

    /// Files `idx` under the id its node holds now (which no other entry may have).
    pub(crate) fn insert(&mut self, graph: &Graph, idx: NodeIndex) {
        let hasher = &self.hasher;
        self.table
            .insert_unique(hasher.hash_one(graph[idx].id.as_str()), idx, |&i| {
                hasher.hash_one(graph[i].id.as_str())
            });
    }

    /// Forgets `idx`, filed under `id` (the id it was inserted with, whatever its node holds now).
    pub(crate) fn remove(&mut self, id: &str, idx: NodeIndex) {
        if let Ok(entry) = self.table.find_entry(self.hash(id), |&i| i == idx) {
            entry.remove();
        }
    }

    pub(crate) fn iter(&self) -> impl Iterator<Item = NodeIndex> + '_ {
        self.table.iter().copied()
    }
}
