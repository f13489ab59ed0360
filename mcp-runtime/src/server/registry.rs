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
    index: HashMap<String, usize>,
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

    /// One page: the items and the cursor of the next page. A cursor we did not issue is `-32602`.
    pub fn page(
        &self,
        cursor: Option<&str>,
        page_size: usize,
    ) -> Result<(&[T], Option<String>), ErrorObject> {
        let start = match cursor {
            None => 0,
            Some(c) => c
                .strip_prefix("o")
                .and_then(|n| n.parse::<usize>().ok())
                .filter(|&n| n <= self.items.len())
                .ok_or_else(|| {
                    ErrorObject::invalid_params(format!("Invalid params: unknown cursor {c:?}"))
                })?,
        };
        let end = (start + page_size.max(1)).min(self.items.len());
        let next = (end < self.items.len()).then(|| format!("o{end}"));
        Ok((&self.items[start..end], next))
    }
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
