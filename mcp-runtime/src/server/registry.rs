//! An ordered, name-indexed set of routes with cursor pagination, swapped whole on change so that readers
//! never wait for writers.

use crate::protocol::ErrorObject;
use std::collections::HashMap;
use std::sync::{Arc, RwLock};

/// Something with a unique key (a tool or prompt name, a resource URI).
pub trait Keyed {
    fn key(&self) -> &str;
}

pub struct Registry<T> {
    current: RwLock<Arc<Set<T>>>,
}

pub struct Set<T> {
    pub items: Vec<T>,
    /// foldhash, randomly seeded: looked up by a name from the wire on every call.
    index: HashMap<String, usize, foldhash::fast::RandomState>,
}

impl<T: Keyed + Clone> Set<T> {
    /// A set of these items, indexed by key (a later duplicate shadows an earlier one in lookups).
    pub fn new(items: Vec<T>) -> Self {
        let index = items
            .iter()
            .enumerate()
            .map(|(i, t)| (t.key().to_string(), i))
            .collect();
        Set { items, index }
    }

    pub fn get(&self, key: &str) -> Option<&T> {
        self.index.get(key).map(|&i| &self.items[i])
    }
}

/// One page of `items`: the items and the cursor of the next page. A cursor we did not issue is `-32602`.
pub fn page_of<'a, U>(
    items: &'a [U],
    cursor: Option<&str>,
    page_size: usize,
) -> Result<(&'a [U], Option<String>), ErrorObject> {
    let start = match cursor {
        None => 0,
        Some(c) => c
            .strip_prefix("o")
            .and_then(|n| n.parse::<usize>().ok())
            .filter(|&n| n <= items.len())
            .ok_or_else(|| {
                ErrorObject::invalid_params(format!("Invalid params: unknown cursor {c:?}"))
            })?,
    };
    let end = (start + page_size.max(1)).min(items.len());
    let next = (end < items.len()).then(|| format!("o{end}"));
    Ok((&items[start..end], next))
}

impl<T: Keyed + Clone> Default for Registry<T> {
    fn default() -> Self {
        Registry {
            current: RwLock::new(Arc::new(Set::new(Vec::new()))),
        }
    }
}

impl<T: Keyed + Clone> Registry<T> {
    pub fn snapshot(&self) -> Arc<Set<T>> {
        self.current
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Adds an item; `Err` names the duplicate key.
    pub fn insert(&self, item: T) -> Result<(), String> {
        let mut cur = self.current.write().unwrap_or_else(|e| e.into_inner());
        if cur.index.contains_key(item.key()) {
            return Err(item.key().to_string());
        }
        let mut items = cur.items.clone();
        items.push(item);
        *cur = Arc::new(Set::new(items));
        Ok(())
    }

    /// Adds many items with one rebuild (a server built with thousands of tools must not rebuild the set
    /// once per tool); `Err` names the first duplicate key, and then nothing is added.
    pub fn extend(&self, new: Vec<T>) -> Result<(), String> {
        let mut cur = self.current.write().unwrap_or_else(|e| e.into_inner());
        let mut seen = std::collections::HashSet::with_capacity(new.len());
        for item in &new {
            if cur.index.contains_key(item.key()) || !seen.insert(item.key()) {
                return Err(item.key().to_string());
            }
        }
        let mut items = cur.items.clone();
        items.extend(new);
        *cur = Arc::new(Set::new(items));
        Ok(())
    }

    /// Removes the items with keys in `remove`, then adds `add`, in one rebuild. Returns the keys of the
    /// items of `add` that were left out because their key was taken.
    pub fn update(&self, remove: &[&str], add: Vec<T>) -> Vec<String> {
        let mut cur = self.current.write().unwrap_or_else(|e| e.into_inner());
        let gone: std::collections::HashSet<&str> = remove.iter().copied().collect();
        let mut items: Vec<T> = cur
            .items
            .iter()
            .filter(|i| !gone.contains(i.key()))
            .cloned()
            .collect();
        let mut keys: std::collections::HashSet<String> =
            items.iter().map(|i| i.key().to_string()).collect();
        let mut taken = Vec::new();
        for item in add {
            if keys.insert(item.key().to_string()) {
                items.push(item);
            } else {
                taken.push(item.key().to_string());
            }
        }
        *cur = Arc::new(Set::new(items));
        taken
    }

    /// Removes an item by key; whether it was there.
    pub fn remove(&self, key: &str) -> bool {
        let mut cur = self.current.write().unwrap_or_else(|e| e.into_inner());
        if !cur.index.contains_key(key) {
            return false;
        }
        let items: Vec<T> = cur
            .items
            .iter()
            .filter(|i| i.key() != key)
            .cloned()
            .collect();
        *cur = Arc::new(Set::new(items));
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone, Debug, PartialEq)]
    struct Item(&'static str, u32);

    impl Keyed for Item {
        fn key(&self) -> &str {
            self.0
        }
    }

    #[test]
    fn update_removes_then_adds_in_one_swap_and_names_taken_keys() {
        let r = Registry::default();
        r.extend(vec![Item("a", 1), Item("b", 1), Item("c", 1)])
            .unwrap();
        let before = r.snapshot();
        // `b` is replaced (removed and added back), `c` goes, `d` comes, `a` is taken.
        let taken = r.update(&["b", "c"], vec![Item("b", 2), Item("d", 1), Item("a", 9)]);
        assert_eq!(taken, ["a"]);
        let now = r.snapshot();
        assert_eq!(now.items, [Item("a", 1), Item("b", 2), Item("d", 1)]);
        assert_eq!(now.get("b"), Some(&Item("b", 2)));
        assert_eq!(now.get("c"), None);
        // Readers holding the old snapshot keep it.
        assert_eq!(before.items.len(), 3);
    }
}
