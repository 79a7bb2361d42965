//! The JSON body of an API write read into its own shape, strictly: a key twice, a body
//! that is not an object, and a field of the wrong type are refused naming the field, in
//! words rather than Rust's type names ([`crate::strict_json`] reads it).

use crate::error::WebError;
use crate::store::FieldError;
use serde::de::DeserializeOwned;
use serde_json::Value;

/// `body` read as `T` (a household, menu or strength write's own shape): a refusal names
/// the field at fault (`recipes[2].id`), as every API error does.
pub(crate) fn typed<T: DeserializeOwned>(body: &[u8]) -> Result<T, WebError> {
    from_value(object(body)?)
}

/// `body` as a JSON object, every key once; else why not.
pub(crate) fn object(body: &[u8]) -> Result<Value, WebError> {
    let (value, repeats) = crate::strict_json::parse(body)
        .map_err(|e| WebError::BadRequest(format!("The body is not JSON: {e}.")))?;
    if let Some(first) = repeats.into_iter().next() {
        return Err(WebError::Refused(first));
    }
    if !value.is_object() {
        return Err(WebError::BadRequest(
            "The body must be a JSON object.".into(),
        ));
    }
    Ok(value)
}

/// `value` read as `T`; a refusal names the field and says what it should be in words.
pub(crate) fn from_value<T: DeserializeOwned>(value: Value) -> Result<T, WebError> {
    serde_path_to_error::deserialize(value).map_err(|e| {
        let path = e.path().to_string();
        let message = e.into_inner().to_string();
        // serde names a missing field in its message, at the object's path.
        if let Some(name) = message
            .strip_prefix("missing field `")
            .and_then(|m| m.strip_suffix('`'))
        {
            let field = match path.as_str() {
                "." => name.to_owned(),
                parent => format!("{parent}.{name}"),
            };
            let message = "is missing".to_owned();
            return WebError::Refused(FieldError { field, message });
        }
        let field = match path.as_str() {
            "." => "(body)".to_owned(),
            _ => path,
        };
        WebError::Refused(FieldError {
            field,
            message: plain(&message),
        })
    })
}

/// serde's message with Rust's type names in words: "expected f64" is "expected a
/// number", "struct StrengthChange" an object.
fn plain(message: &str) -> String {
    const WORDS: [(&str, &str); 12] = [
        ("expected f64", "expected a number"),
        ("expected f32", "expected a number"),
        ("expected i64", "expected a whole number"),
        ("expected u64", "expected a whole number, 0 or more"),
        ("expected u32", "expected a whole number, 0 or more"),
        ("expected u8", "expected a whole number, 0 to 255"),
        ("expected i32", "expected a whole number"),
        ("expected usize", "expected a whole number, 0 or more"),
        ("a sequence", "a list"),
        ("a map", "an object"),
        ("expected a string", "expected text"),
        ("expected a boolean", "expected true or false"),
    ];
    let mut said = message.to_owned();
    for (rust, words) in WORDS {
        said = said.replace(rust, words);
    }
    if let Some(at) = said.find("expected struct ") {
        said.truncate(at);
        said.push_str("expected an object");
    }
    said
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Change {
        name: String,
        abv: Option<f64>,
    }

    fn refusal(body: &str) -> (String, String) {
        match typed::<Change>(body.as_bytes()) {
            Err(WebError::Refused(p)) => (p.field, p.message),
            Err(other) => ("-".into(), other.to_string()),
            Ok(c) => panic!("taken: {c:?}"),
        }
    }

    #[test]
    fn refusals_name_the_field_in_words() {
        let (field, message) = refusal(r#"{"name": "gin", "name": "rum"}"#);
        assert_eq!(field, "name");
        assert!(message.contains("more than once"), "{message}");
        let (field, message) = refusal(r#"{"name": "gin", "abv": "strong"}"#);
        assert_eq!(field, "abv");
        assert!(message.contains("expected a number"), "{message}");
        assert!(!message.contains("f64"), "{message}");
        let (_, message) = refusal(r#"["gin", 40]"#);
        assert_eq!(message, "The body must be a JSON object.");
        let (field, message) = refusal(r#"{"name": 4}"#);
        assert_eq!(field, "name");
        assert!(message.contains("expected text"), "{message}");
        assert_eq!(
            refusal(r#"{"abv": 40}"#),
            ("name".into(), "is missing".into())
        );
        assert!(typed::<Change>(br#"{"name": "gin", "abv": 40}"#).is_ok());
    }
}
