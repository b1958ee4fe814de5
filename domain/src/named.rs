//! `named_enum!`: a closed set of states or kinds stored and sent by name.
//!
//! Each value has one name, used in the database, in forms, in the API and
//! in `data-state` attributes; `parse` is the only way back from a name, so
//! a new variant fails the build wherever a `match` has no arm for it.

/// A stored or sent name that is none of the set's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownName {
    pub kind: &'static str,
    pub raw: String,
}

impl std::fmt::Display for UnknownName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "unknown {} {:?}", self.kind, self.raw)
    }
}

impl std::error::Error for UnknownName {}

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

        /// How a stored name is read back (`#[sqlx(try_from = "String")]`).
        impl TryFrom<String> for $name {
            type Error = $crate::UnknownName;

            fn try_from(raw: String) -> Result<Self, Self::Error> {
                $name::parse(&raw).ok_or($crate::UnknownName {
                    kind: stringify!($name),
                    raw,
                })
            }
        }

        /// Stored as its name in a text column.
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
            &'q str: sqlx::Encode<'q, DB>,
        {
            fn encode_by_ref(
                &self,
                buf: &mut <DB as sqlx::Database>::ArgumentBuffer<'q>,
            ) -> Result<sqlx::encode::IsNull, sqlx::error::BoxDynError> {
                <&'q str as sqlx::Encode<'q, DB>>::encode_by_ref(&self.as_str(), buf)
            }
        }

        /// A name the code does not know is a decode error, not a string
        /// compared somewhere later.
        #[cfg(feature = "sqlx")]
        impl<'r, DB: sqlx::Database> sqlx::Decode<'r, DB> for $name
        where
            &'r str: sqlx::Decode<'r, DB>,
        {
            fn decode(
                value: <DB as sqlx::Database>::ValueRef<'r>,
            ) -> Result<Self, sqlx::error::BoxDynError> {
                let raw = <&'r str as sqlx::Decode<'r, DB>>::decode(value)?;
                Ok($name::try_from(raw.to_owned())?)
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}
