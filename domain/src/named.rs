//! `named_enum!`: a closed set of states or kinds stored and sent by name.
//!
//! Each value has one name, used in the database, in forms, in the API and
//! in `data-state` attributes; `parse` is the only way back from a name, so
//! a new variant fails the build wherever a `match` has no arm for it.

/// Declares the enum with `ALL`, `as_str`, `parse`, `Display` and serde by
/// the same names.
#[macro_export]
macro_rules! named_enum {
    (
        $(#[$meta:meta])*
        pub enum $name:ident {
            $( $(#[$vmeta:meta])* $variant:ident = $text:literal, )+
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
        pub enum $name {
            $( $(#[$vmeta])* #[serde(rename = $text)] $variant, )+
        }

        impl $name {
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            pub fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $text,)+
                }
            }

            pub fn parse(raw: &str) -> Option<$name> {
                match raw {
                    $($text => Some($name::$variant),)+
                    _ => None,
                }
            }
        }

        $crate::text_column!($name, |v| v.as_str(), $name::parse);

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}

/// With the `sqlx` feature (the backend's), a type the database stores as
/// text binds and decodes as that text: `text` gives it, `parse` reads it
/// back, and a value `parse` refuses is a decode error, not a string
/// compared somewhere later.
#[doc(hidden)]
#[macro_export]
macro_rules! text_column {
    ($name:ident, |$v:ident| $text:expr, $parse:path) => {
        #[cfg(feature = "sqlx")]
        impl<DB: sqlx::Database> sqlx::Type<DB> for $name
        where
            String: sqlx::Type<DB>,
        {
            fn type_info() -> DB::TypeInfo {
                <String as sqlx::Type<DB>>::type_info()
            }

            fn compatible(ty: &DB::TypeInfo) -> bool {
                <String as sqlx::Type<DB>>::compatible(ty)
            }
        }

        #[cfg(feature = "sqlx")]
        impl<'q, DB: sqlx::Database> sqlx::Encode<'q, DB> for $name
        where
            String: sqlx::Encode<'q, DB>,
        {
            fn encode_by_ref(
                &self,
                buf: &mut <DB as sqlx::Database>::ArgumentBuffer<'q>,
            ) -> Result<sqlx::encode::IsNull, sqlx::error::BoxDynError> {
                let $v = self;
                <String as sqlx::Encode<'q, DB>>::encode($text.to_owned(), buf)
            }
        }

        #[cfg(feature = "sqlx")]
        impl<'r, DB: sqlx::Database> sqlx::Decode<'r, DB> for $name
        where
            String: sqlx::Decode<'r, DB>,
        {
            fn decode(
                value: <DB as sqlx::Database>::ValueRef<'r>,
            ) -> Result<Self, sqlx::error::BoxDynError> {
                let raw = <String as sqlx::Decode<'r, DB>>::decode(value)?;
                $parse(&raw)
                    .ok_or_else(|| format!("unknown {} {:?}", stringify!($name), raw).into())
            }
        }
    };
}
