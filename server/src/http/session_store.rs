//! tower-sessions storage on our database (both backends), through the
//! backend's `sessions` capability. The user id is kept beside the record so
//! a password change can end the user's other sessions. Idle expiry is the
//! store's, in the application's clock (`sessions::IDLE_SECS`).

use async_trait::async_trait;
use backend::{Clock, Db};
use domain::UserId;
use std::collections::HashMap;
use tower_sessions::cookie::time::OffsetDateTime;
use tower_sessions::session::{Id, Record};
use tower_sessions::session_store::{Error, Result};
use tower_sessions::SessionStore;

pub const USER_KEY: &str = "user_id";

#[derive(Clone, Debug)]
pub struct DbSessionStore {
    pub db: Db,
    pub clock: Clock,
}

fn backend(error: anyhow::Error) -> Error {
    Error::Backend(format!("{error:#}"))
}

#[async_trait]
impl SessionStore for DbSessionStore {
    async fn create(&self, record: &mut Record) -> Result<()> {
        let data = serde_json::to_string(&record.data).map_err(|e| Error::Encode(e.to_string()))?;
        let user = record
            .data
            .get(USER_KEY)
            .and_then(|v| v.as_str())
            .map(UserId::from);
        // A 128-bit random id colliding is all but impossible; if it does,
        // draw another rather than overwrite someone's session.
        while !backend::sessions::insert_new(
            &self.db,
            &record.id.to_string(),
            user.as_ref(),
            &data,
            self.clock.now(),
        )
        .await
        .map_err(backend)?
        {
            record.id = Id::default();
        }
        Ok(())
    }

    async fn save(&self, record: &Record) -> Result<()> {
        let data = serde_json::to_string(&record.data).map_err(|e| Error::Encode(e.to_string()))?;
        let user = record
            .data
            .get(USER_KEY)
            .and_then(|v| v.as_str())
            .map(UserId::from);
        backend::sessions::save(
            &self.db,
            &record.id.to_string(),
            user.as_ref(),
            &data,
            self.clock.now(),
        )
        .await
        .map_err(backend)
    }

    async fn load(&self, id: &Id) -> Result<Option<Record>> {
        let Some((data, expires_at)) =
            backend::sessions::load(&self.db, &id.to_string(), self.clock.now())
                .await
                .map_err(backend)?
        else {
            return Ok(None);
        };
        let data: HashMap<String, serde_json::Value> =
            serde_json::from_str(&data).map_err(|e| Error::Decode(e.to_string()))?;
        let expiry_date = OffsetDateTime::from_unix_timestamp(expires_at)
            .map_err(|e| Error::Decode(e.to_string()))?;
        Ok(Some(Record {
            id: *id,
            data,
            expiry_date,
        }))
    }

    async fn delete(&self, id: &Id) -> Result<()> {
        backend::sessions::delete(&self.db, &id.to_string())
            .await
            .map_err(backend)
    }
}
