//! Every memory as an MCP resource, `memory://<name>`: listed a page at a time (the cursor is
//! the last name of the page before), read redacted as `read_memory` reads it.

use rmcp::ErrorData;
use rmcp::model::{
    ListResourceTemplatesResult, ListResourcesResult, ReadResourceResult, Resource,
    ResourceContents, ResourceTemplate,
};

use super::tools::MemlaneServer;
use crate::ops;

/// The scheme and authority of a memory's URI.
pub const URI_PREFIX: &str = "memory://";

/// Resources per `resources/list` page.
pub const PAGE_SIZE: usize = 50;

/// The MIME type of a memory's content.
const MARKDOWN: &str = "text/markdown";

/// The URI of memory `name`: `memory://auth/jwt-plan`; a byte outside letters, digits, `-`,
/// `.`, `_`, `~` and `/` is percent-encoded (`memory://meeting%20notes`).
pub fn uri_of(name: &str) -> String {
    let mut out = String::from(URI_PREFIX);
    for b in name.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b'/') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The memory a `memory://` URI names, percent-decoded; `None` for another scheme or bad
/// encoding.
pub fn name_of(uri: &str) -> Option<String> {
    let rest = uri.strip_prefix(URI_PREFIX)?;
    let bytes = rest.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = rest.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok().filter(|s| !s.is_empty())
}

fn internal(e: &crate::Error) -> ErrorData {
    ErrorData::internal_error(e.to_string(), None)
}

impl MemlaneServer {
    /// One page of resources, in name order, after the memory named `cursor`.
    pub(super) fn resource_page(
        &self,
        cursor: Option<&str>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let (listed, more) = ops::views::page(self, cursor, PAGE_SIZE).map_err(|e| internal(&e))?;
        let next = more.then(|| listed.last().map(|m| m.name.clone())).flatten();
        let resources: Vec<Resource> = listed
            .into_iter()
            .map(|m| {
                let pinned = if m.pinned { ", pinned" } else { "" };
                let r = Resource::new(uri_of(&m.name), m.name.clone())
                    .with_description(format!(
                        "{} memory ({}{pinned}), updated {}",
                        m.memory_type, m.status, m.updated
                    ))
                    .with_mime_type(MARKDOWN)
                    .with_size(m.size);
                // The title is the memory's first heading, shown redacted as its content is.
                if m.title.is_empty() || m.title == m.name { r } else { r.with_title(m.title) }
            })
            .collect();
        let mut result = ListResourcesResult::with_all_items(resources);
        result.next_cursor = next;
        Ok(result)
    }

    /// The template every memory's URI follows.
    pub(super) fn resource_templates() -> ListResourceTemplatesResult {
        ListResourceTemplatesResult::with_all_items(vec![
            ResourceTemplate::new(format!("{URI_PREFIX}{{name}}"), "memory")
                .with_title("A memory")
                .with_description(
                    "A memory of this project by name (e.g. memory://auth/jwt-plan): its Markdown content, redacted",
                )
                .with_mime_type(MARKDOWN),
        ])
    }

    /// A memory's content, redacted as `read_memory` returns it; reading counts as a use.
    pub(super) fn resource_read(&self, uri: &str) -> Result<ReadResourceResult, ErrorData> {
        let Some(name) = name_of(uri) else {
            return Err(ErrorData::invalid_params(
                format!("not a memory URI: {uri}; memory resources look like {URI_PREFIX}<name>"),
                None,
            ));
        };
        let m = ops::memory::read(self, &name, true).map_err(|e| match e.kind() {
            crate::ErrorKind::NotFound => ErrorData::resource_not_found(e.to_string(), None),
            crate::ErrorKind::Invalid | crate::ErrorKind::Refused => {
                ErrorData::invalid_params(e.to_string(), None)
            }
            _ => internal(&e),
        })?;
        let text = m.redacted_content(self.vault.config.privacy.scrub_secrets);
        Ok(ReadResourceResult::new(vec![ResourceContents::TextResourceContents {
            uri: uri_of(m.name.as_str()),
            mime_type: Some(MARKDOWN.to_owned()),
            text,
            meta: None,
        }]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_round_trip_and_encode_what_a_uri_cannot_hold() {
        for name in ["auth/jwt-plan", "meeting notes", "café", "a%b"] {
            assert_eq!(name_of(&uri_of(name)).as_deref(), Some(name), "{}", uri_of(name));
        }
        assert_eq!(uri_of("meeting notes"), "memory://meeting%20notes");
        assert_eq!(name_of("file:///etc/passwd"), None);
        assert_eq!(name_of("memory://"), None);
        assert_eq!(name_of("memory://bad%zz"), None);
    }
}
