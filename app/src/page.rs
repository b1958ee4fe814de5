//! A page is its view: the data a handler read, which knows the component
//! that shows it. The server renders `view.render(lang)` inside the shell,
//! so a handler and its component cannot drift apart unnoticed: a view
//! without a page does not compile, and there is no second route table.

use domain::Lang;
use leptos::prelude::*;
use std::sync::Arc;

/// The data of one portal page, and how it is shown.
pub trait PageView: Clone + Send + Sync + 'static {
    fn render(self, lang: Lang) -> AnyView;
}

/// `impl PageView for KeysView` showing `<KeysPage lang view=self />`:
/// `page_view!(KeysView => KeysPage(view));`
#[macro_export]
macro_rules! page_view {
    ($view:ty => $page:ident($prop:ident)) => {
        impl $crate::page::PageView for $view {
            fn render(self, lang: domain::Lang) -> leptos::prelude::AnyView {
                leptos::prelude::IntoAny::into_any(
                    leptos::prelude::view! { <$page lang $prop=self /> },
                )
            }
        }
    };
}

/// What the shell shows inside `<body>`: built by the server per request
/// (a page's view, a page that needs no data, or an error page).
#[derive(Clone)]
pub struct PageBody(Arc<dyn Fn() -> AnyView + Send + Sync>);

impl PageBody {
    pub fn new(render: impl Fn() -> AnyView + Send + Sync + 'static) -> PageBody {
        PageBody(Arc::new(render))
    }

    /// A page's view in this language.
    pub fn of<V: PageView>(view: V, lang: Lang) -> PageBody {
        PageBody::new(move || view.clone().render(lang))
    }

    pub fn show(&self) -> AnyView {
        (self.0)()
    }
}
