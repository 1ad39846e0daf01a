//! Faults on demand: each one breaks exactly one subscription rule, so a learner sees what a
//! broken server looks like and a client author can prove their client notices.

use std::fmt;
use std::str::FromStr;

/// One deliberate protocol violation. Names are kebab-case for `--fault NAME`.
///
/// The catalogue cannot drift: the list of faults ([`Fault::all`]) and their names
/// ([`Fault::name`], the variant in kebab-case) are derived tables, and each other fact about a
/// fault ([`Fault::rule`], [`Fault::spec`]) is an exhaustive `match`, so a new variant does not
/// compile until it is explained and cited. `--help`, `--list-faults`, the lab's `fault` step, completions and
/// the control tools all read these; the tests hold the README's table to them. What the fault
/// does lives where the server sends (`hub.rs`, or `http.rs`/`stdio.rs` for a transport).
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    strum::IntoStaticStr,
    strum::VariantArray,
)]
#[strum(serialize_all = "kebab-case")]
pub enum Fault {
    /// Never sends `notifications/subscriptions/acknowledged`; change notifications still flow.
    NoAck,
    /// Sends the acknowledgement only after `Config::ack_delay`; changes meanwhile are held back
    /// and delivered after it. Breaks no spec rule (there is no deadline): it exercises a client's
    /// own ack timeout.
    LateAck,
    /// Sends a (requested, correctly tagged) change notification before the acknowledgement.
    NotifyBeforeAck,
    /// Change notifications carry no `io.modelcontextprotocol/subscriptionId`.
    Untagged,
    /// Change notifications are tagged with a server-minted id (`"sub-8f21"`), not the listen id.
    WrongSubscriptionId,
    /// Change notifications are tagged with the listen id in the other JSON type (`"7"` for `7`).
    IdTypeChanged,
    /// Every change is delivered, whatever the filter asked for (the ack stays honest).
    FilterIgnored,
    /// The ack lists tools list changes (the server supports them), but they are never
    /// delivered: an acknowledged type treated as no promise at all.
    AckOverclaims,
    /// When the server ends a subscription the stream just ends: no completion result.
    AbruptClose,
    /// The graceful close result lacks `_meta.io.modelcontextprotocol/subscriptionId`.
    CloseWithoutTag,
    /// stdio: `notifications/cancelled` from the client is ignored and notifications keep coming.
    /// (On HTTP the client cancels by closing the stream, which then cannot carry anything.)
    NotifyAfterCancel,
    /// A `notifications/message` log line is sent on the listen stream right after the ack.
    LogOnListen,
}

impl Fault {
    /// Every fault, in declaration order (the derived table).
    pub fn all() -> &'static [Fault] {
        <Fault as strum::VariantArray>::VARIANTS
    }

    /// The `--fault` name: the variant in kebab-case (the derived table).
    pub fn name(self) -> &'static str {
        self.into()
    }

    /// The rule this fault breaks, in one sentence.
    pub fn rule(self) -> &'static str {
        match self {
            Fault::NoAck => {
                "The server MUST send notifications/subscriptions/acknowledged as the first message of every subscription."
            }
            Fault::LateAck => {
                "No spec rule: the spec sets no deadline for the acknowledgement; a late ack tests the client's own timeout, and changes are still delivered after it."
            }
            Fault::NotifyBeforeAck => {
                "No notification for a subscription may precede its acknowledgement (MUST NOT)."
            }
            Fault::Untagged => {
                "Every notification on a listen stream MUST carry _meta.io.modelcontextprotocol/subscriptionId."
            }
            Fault::WrongSubscriptionId => {
                "The subscriptionId MUST be the listen request's own JSON-RPC id, chosen by the client, never minted by the server."
            }
            Fault::IdTypeChanged => {
                "The subscriptionId echoes the listen id exactly, JSON type included (a RequestId is a string or a number)."
            }
            Fault::FilterIgnored => {
                "The server MUST NOT send a notification type the client did not ask for in its filter."
            }
            Fault::AckOverclaims => {
                "A type the acknowledgement lists is one the server agreed to honour: when it changes, the notification SHOULD be sent (this server acknowledges tools list changes and never sends them)."
            }
            Fault::AbruptClose => {
                "A server ending a subscription SHOULD answer the listen request with the completion result before closing."
            }
            Fault::CloseWithoutTag => {
                "The completion result MUST carry _meta.io.modelcontextprotocol/subscriptionId equal to the listen id."
            }
            Fault::NotifyAfterCancel => {
                "After the client cancels, the server MUST NOT send anything more for that request."
            }
            Fault::LogOnListen => {
                "notifications/message (and progress) MUST NOT be sent on a listen stream."
            }
        }
    }

    /// Where the rule lives: the spec section (short names as in docs/rules.md), then its entry there.
    pub fn spec(self) -> &'static str {
        match self {
            Fault::NoAck => "SUB §Acknowledgment; docs/rules.md#ack-first",
            Fault::LateAck => "SUB §Acknowledgment; docs/rules.md#ack-timeout",
            Fault::NotifyBeforeAck => "SUB §Acknowledgment; docs/rules.md#ack-first",
            Fault::Untagged => "BASE §_meta; docs/rules.md#tag-present",
            Fault::WrongSubscriptionId => {
                "SUB §Receiving Notifications; docs/rules.md#tag-matches-id"
            }
            Fault::IdTypeChanged => "TS NotificationMetaObject; docs/rules.md#tag-matches-id",
            Fault::FilterIgnored => "SUB §Opening a Stream; docs/rules.md#only-requested-types",
            Fault::AckOverclaims => {
                "SUB §Acknowledgment; TOOLS §List Changed Notification; docs/rules.md#acked-types-delivered"
            }
            Fault::AbruptClose => "SUB §Graceful Closure; docs/rules.md#graceful-close",
            Fault::CloseWithoutTag => {
                "TS SubscriptionsListenResult; docs/rules.md#close-result-shape"
            }
            Fault::NotifyAfterCancel => "STDIO §Cancellation; docs/rules.md#nothing-after-cancel",
            Fault::LogOnListen => {
                "LOG §Per-request log level; docs/rules.md#no-progress-or-message"
            }
        }
    }

    pub(crate) fn bit(self) -> u32 {
        1 << (self as u32)
    }
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An unknown `--fault` name; the message names the nearest ones.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", crate::names::unknown("fault", given, Fault::all().iter().map(|f| f.name()), "`--list-faults` lists them with the rule each breaks"))]
pub struct UnknownFault {
    pub given: String,
}

impl FromStr for Fault {
    type Err = UnknownFault;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let wanted = s.trim().to_ascii_lowercase().replace('_', "-");
        Fault::all()
            .iter()
            .copied()
            .find(|f| f.name() == wanted)
            .ok_or_else(|| UnknownFault { given: s.into() })
    }
}

/// The faults for `--help`: every name, wrapped to the help text's lines under a two-space indent.
pub fn help_list() -> String {
    let mut out = String::new();
    let mut line = String::from(" ");
    for (i, f) in Fault::all().iter().enumerate() {
        let sep = if i + 1 < Fault::all().len() { "," } else { "" };
        if line.len() + f.name().len() + sep.len() + 1 > 88 {
            out.push_str(&line);
            out.push('\n');
            line = String::from(" ");
        }
        line.push(' ');
        line.push_str(f.name());
        line.push_str(sep);
    }
    out.push_str(&line);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a fault points to (`mcp-tutor why RULE`) is a rule `check` can fail, so a learner
    /// who runs `check` against it sees that rule fail; only a fault that breaks no spec rule
    /// points elsewhere. (`check`'s integration tests prove it fails exactly that rule.)
    #[test]
    fn each_fault_names_a_rule_check_judges() {
        for f in Fault::all() {
            let anchor = f.spec().rsplit_once("docs/rules.md#").map(|(_, a)| a);
            let judged = anchor.and_then(crate::validator::CheckRule::from_name);
            assert_eq!(
                judged.is_none(),
                f.rule().starts_with("No spec rule"),
                "{f} points to {anchor:?}"
            );
        }
    }

    #[test]
    fn names_round_trip_and_are_unique() {
        let mut seen = std::collections::HashSet::new();
        for f in Fault::all() {
            assert_eq!(f.name().parse::<Fault>().unwrap(), *f);
            assert!(seen.insert(f.name()));
            assert!(!f.rule().is_empty() && f.spec().contains("docs/rules.md#"));
        }
        // Derived from the variant: the same spelling as serde's and the README's.
        assert_eq!(Fault::WrongSubscriptionId.name(), "wrong-subscription-id");
        assert_eq!("No_Ack".parse::<Fault>().unwrap(), Fault::NoAck);
        // The bit set that holds the active faults has room for every one.
        assert!(Fault::all().len() <= 32);
        let err = "no-akc".parse::<Fault>().unwrap_err().to_string();
        assert!(err.contains("did you mean `no-ack`?") && !err.contains("log-on-listen"));
    }
}
