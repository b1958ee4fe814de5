//! What people may write: stored as typed (trimmed, line ends made `\n`),
//! never escaped here; escaping is the page's job.

use super::{ScalingPlan, SupportError, BODY_MAX, SCALING_FIELD_MAX, SUBJECT_MAX, SUBJECT_MIN};

/// A subject: 3 to 150 characters on one line, no control characters.
pub fn valid_subject(raw: &str) -> Result<String, SupportError> {
    let subject = raw.trim();
    let count = subject.chars().count();
    if !(SUBJECT_MIN..=SUBJECT_MAX).contains(&count) || subject.chars().any(char::is_control) {
        return Err(SupportError::InvalidSubject);
    }
    Ok(subject.to_owned())
}

/// A message: 1 to 10,000 characters; line breaks and tabs are text,
/// any other control character (NUL included) is refused.
pub fn valid_body(raw: &str) -> Result<String, SupportError> {
    let body = raw.replace("\r\n", "\n").replace('\r', "\n");
    let body = body.trim();
    let count = body.chars().count();
    if !(1..=BODY_MAX).contains(&count)
        || body
            .chars()
            .any(|c| c.is_control() && c != '\n' && c != '\t')
    {
        return Err(SupportError::InvalidBody);
    }
    Ok(body.to_owned())
}

/// The scaling-out answers: each optional, on one line, at most 200
/// characters. A bad one makes the message invalid (`InvalidBody`): the
/// answers are part of what the customer wrote.
pub fn valid_scaling(plan: &ScalingPlan) -> Result<ScalingPlan, SupportError> {
    let field = |raw: &str| {
        let value = raw.trim();
        if value.chars().count() > SCALING_FIELD_MAX || value.chars().any(char::is_control) {
            return Err(SupportError::InvalidBody);
        }
        Ok(value.to_owned())
    };
    Ok(ScalingPlan {
        cards: field(&plan.cards)?,
        workload: field(&plan.workload)?,
        model_size: field(&plan.model_size)?,
        timeline: field(&plan.timeline)?,
    })
}

/// The first lines of a reply for a mail: at most 3 lines of text and 300
/// characters, paragraphs kept apart by a blank line as written (several
/// blank lines read as one); the portal has the rest.
pub fn excerpt(body: &str) -> String {
    let mut lines: Vec<&str> = Vec::new();
    let mut cut = false;
    for line in body.lines().map(str::trim_end) {
        if line.trim().is_empty() {
            if lines.last().is_some_and(|l| !l.is_empty()) {
                lines.push("");
            }
        } else if lines.iter().filter(|l| !l.is_empty()).count() == 3 {
            cut = true;
            break;
        } else {
            lines.push(line);
        }
    }
    while lines.last() == Some(&"") {
        lines.pop();
    }
    let mut text = lines.join("\n");
    if text.chars().count() > 300 {
        text = text.chars().take(299).collect();
        cut = true;
    }
    if cut {
        text.push('…');
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subjects_are_one_line_of_3_to_150_characters() {
        assert_eq!(
            valid_subject("  Eight cards?  ").ok().as_deref(),
            Some("Eight cards?")
        );
        assert!(valid_subject("ab").is_err());
        assert!(valid_subject(&"界".repeat(150)).is_ok());
        assert!(valid_subject(&"界".repeat(151)).is_err());
        assert!(valid_subject("two\nlines").is_err());
        assert!(valid_subject("tab\there").is_err());
        assert!(valid_subject("nul\0byte").is_err());
    }

    #[test]
    fn bodies_keep_what_was_typed_but_no_control_characters() {
        let hostile = "<script>alert(1)</script>\r\n\t\u{202e}RTL";
        assert_eq!(
            valid_body(hostile).ok().as_deref(),
            Some("<script>alert(1)</script>\n\t\u{202e}RTL")
        );
        assert!(valid_body("   \n ").is_err());
        assert!(valid_body(&"x".repeat(10_000)).is_ok());
        assert!(valid_body(&"x".repeat(10_001)).is_err());
        assert!(valid_body("a\0b").is_err());
        assert!(valid_body("bell\u{7}").is_err());
    }

    #[test]
    fn scaling_answers_are_short_and_optional() {
        let plan = ScalingPlan {
            cards: " 8 ".into(),
            ..ScalingPlan::default()
        };
        assert_eq!(valid_scaling(&plan).ok().map(|p| p.cards), Some("8".into()));
        let long = ScalingPlan {
            timeline: "y".repeat(201),
            ..ScalingPlan::default()
        };
        assert!(valid_scaling(&long).is_err());
    }

    #[test]
    fn a_mail_shows_three_lines_at_most() {
        assert_eq!(excerpt("one\n\ntwo\nthree\nfour"), "one\n\ntwo\nthree…");
        assert_eq!(excerpt("\n\nHello,\n\n\n\nfixed.\n\n"), "Hello,\n\nfixed.");
        assert_eq!(excerpt("short"), "short");
        let long = excerpt(&"x".repeat(1000));
        assert_eq!(long.chars().count(), 300);
    }
}
