//! Time as the business sees it: unix seconds, UTC. A manual clock lets tests
//! and demos move time forward (hold expiry, terms) without sleeping.

use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;

#[derive(Clone, Debug, Default)]
pub struct Clock {
    manual: Option<Arc<AtomicI64>>,
}

impl Clock {
    pub fn system() -> Clock {
        Clock { manual: None }
    }

    /// A clock that stands still at `at` until advanced.
    pub fn manual(at: i64) -> Clock {
        Clock {
            manual: Some(Arc::new(AtomicI64::new(at))),
        }
    }

    pub fn now(&self) -> i64 {
        match &self.manual {
            Some(at) => at.load(Ordering::SeqCst),
            None => std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs() as i64),
        }
    }

    /// Moves a manual clock forward; a system clock cannot be moved.
    pub fn advance(&self, seconds: i64) -> bool {
        match &self.manual {
            Some(at) => {
                at.fetch_add(seconds, Ordering::SeqCst);
                true
            }
            None => false,
        }
    }
}
