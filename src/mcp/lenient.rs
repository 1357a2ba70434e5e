//! Tolerant parameter parsing, for clients that cannot send every JSON type.
//!
//! The MCP Inspector CLI and some agents send every argument as a string (`"limit": "2"`,
//! `"force": "true"`), and agents often send one tag where a list is asked for. The schemas say
//! `integer`, `boolean` and `array`; these deserializers also take the string form (and `null`
//! for "not given"), so such a call works instead of failing on its types.

use std::fmt::Display;
use std::str::FromStr;

use serde::de::{DeserializeOwned, Error as _};
use serde::{Deserialize, Deserializer};
use serde_json::Value;

/// What a scalar parameter is, for error messages.
pub trait Scalar: DeserializeOwned + FromStr<Err: Display> {
    /// `an integer`, `true or false` …
    const WHAT: &'static str;
    /// An example of a good value.
    const EXAMPLE: &'static str;
}

impl Scalar for usize {
    const WHAT: &'static str = "a whole number of 0 or more";
    const EXAMPLE: &'static str = "5";
}

impl Scalar for i64 {
    const WHAT: &'static str = "a whole number";
    const EXAMPLE: &'static str = "1767225600";
}

impl Scalar for f64 {
    const WHAT: &'static str = "a number";
    const EXAMPLE: &'static str = "0.5";
}

impl Scalar for bool {
    const WHAT: &'static str = "true or false";
    const EXAMPLE: &'static str = "true";
}

/// An optional scalar: the JSON value, or a string holding it (`"2"`, `"0.5"`, `"true"`);
/// `null` is "not given".
pub fn opt<'de, D, T>(d: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Scalar,
{
    // What was sent is not repeated: an argument error never echoes what the client typed.
    let bad = |sent: &str| {
        D::Error::custom(format!(
            "{sent} that is not {} was given where {} is expected; send e.g. {} (a JSON value or \
             a string holding one)",
            T::WHAT,
            T::WHAT,
            T::EXAMPLE
        ))
    };
    match Option::<Value>::deserialize(d)? {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => {
            let t = s.trim();
            // `"True"` as Python's str(True) writes it.
            let t = if t.eq_ignore_ascii_case("true") || t.eq_ignore_ascii_case("false") {
                t.to_ascii_lowercase()
            } else {
                t.to_owned()
            };
            t.parse::<T>().map(Some).map_err(|_| bad("a string"))
        }
        Some(v) => {
            let sent = match &v {
                Value::Bool(_) => "a boolean",
                Value::Number(_) => "a number",
                Value::Array(_) => "a list",
                _ => "an object",
            };
            T::deserialize(v).map(Some).map_err(|_| bad(sent))
        }
    }
}

/// An optional list of strings: a JSON array of strings, or one string (one item); `null` is
/// "not given".
pub fn opt_list<'de, D>(d: D) -> Result<Option<Vec<String>>, D::Error>
where
    D: Deserializer<'de>,
{
    match Option::<Value>::deserialize(d)? {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(vec![s])),
        Some(v @ Value::Array(_)) => Vec::<String>::deserialize(v).map(Some).map_err(|_| {
            D::Error::custom("a list item is not a string; send strings, e.g. [\"auth\", \"db\"]")
        }),
        Some(_) => Err(D::Error::custom(
            "expected a list of strings or one string, e.g. [\"auth\", \"db\"] or \"auth\"",
        )),
    }
}

/// A required list of strings: a JSON array of strings, or one string (one item).
pub fn list<'de, D>(d: D) -> Result<Vec<String>, D::Error>
where
    D: Deserializer<'de>,
{
    opt_list(d)?.ok_or_else(|| D::Error::custom("expected a list of strings, not null"))
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;

    #[derive(Debug, Deserialize)]
    struct P {
        #[serde(default, deserialize_with = "super::opt")]
        n: Option<usize>,
        #[serde(default, deserialize_with = "super::opt")]
        b: Option<bool>,
        #[serde(default, deserialize_with = "super::opt")]
        f: Option<f64>,
        #[serde(default, deserialize_with = "super::opt_list")]
        tags: Option<Vec<String>>,
    }

    fn p(arguments: &str) -> Result<P, String> {
        serde_json::from_str(arguments).map_err(|e| e.to_string())
    }

    #[test]
    fn scalars_come_as_values_or_strings() {
        let a = p(r#"{"n": 2, "b": true, "f": 0.5}"#).unwrap();
        let b = p(r#"{"n": "2", "b": "true", "f": "0.5"}"#).unwrap();
        let c = p(r#"{"n": " 2 ", "b": "True", "f": "1"}"#).unwrap();
        assert_eq!((a.n, a.b, a.f), (Some(2), Some(true), Some(0.5)));
        assert_eq!((b.n, b.b, b.f), (Some(2), Some(true), Some(0.5)));
        assert_eq!((c.n, c.b, c.f), (Some(2), Some(true), Some(1.0)));
        let none = p(r#"{"n": null}"#).unwrap();
        assert_eq!((none.n, none.b, none.tags), (None, None, None));
    }

    #[test]
    fn bad_scalars_say_what_to_send() {
        let e = p(r#"{"n": "zirconcodename"}"#).unwrap_err();
        assert!(e.contains("a string that is not a whole number of 0 or more was given"), "{e}");
        assert!(e.contains("send e.g. 5"), "{e}");
        assert!(!e.contains("zirconcodename"), "{e}");
        let e = p(r#"{"n": -1}"#).unwrap_err();
        assert!(e.contains("a number that is not a whole number"), "{e}");
        let e = p(r#"{"b": "yes"}"#).unwrap_err();
        assert!(e.contains("a string that is not true or false"), "{e}");
        let e = p(r#"{"b": 1}"#).unwrap_err();
        assert!(e.contains("a number that is not true or false"), "{e}");
    }

    #[test]
    fn a_list_takes_one_string() {
        assert_eq!(p(r#"{"tags": "auth"}"#).unwrap().tags, Some(vec!["auth".to_owned()]));
        assert_eq!(p(r#"{"tags": ["a", "b"]}"#).unwrap().tags, Some(vec!["a".into(), "b".into()]));
        assert!(p(r#"{"tags": [1]}"#).unwrap_err().contains("not a string"));
        assert!(p(r#"{"tags": 3}"#).unwrap_err().contains("list of strings"));
    }
}
