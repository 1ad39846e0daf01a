//! The mock's faults as the lab and `serve --list-faults` show them: rows read from the
//! catalogue or from a running server's `test_list_faults` reply, laid out in two columns.

use serde_json::Value;

/// One fault as the catalogue or a running server describes it.
pub struct FaultRow {
    pub name: &'static str,
    /// Whether a running server has it on (`None`: the catalogue, no server).
    pub on: Option<bool>,
    pub rule: String,
    pub spec: String,
}

/// The faults in two columns, the rule each breaks beside its name and where the rule is
/// written under it (`--list-faults`, and the lab's `fault`).
pub fn fault_table(rows: &[FaultRow], indent: &str, width: usize) -> String {
    let rows: Vec<(String, String)> = rows
        .iter()
        .map(|r| {
            let term = match r.on {
                Some(true) => format!("[on ] {}", r.name),
                Some(false) => format!("[off] {}", r.name),
                None => r.name.to_owned(),
            };
            let pointer = crate::rules_doc::pointer(&r.spec);
            (term, format!("{}\nspec: {pointer}", r.rule))
        })
        .collect();
    crate::term::columns(&rows, indent, width)
}

/// The rows of a `test_list_faults` reply (`structuredContent.faults`), for the renderer.
pub(super) fn listed_faults(message: &Value) -> Option<Vec<FaultRow>> {
    let faults = message
        .get("result")?
        .get("structuredContent")?
        .get("faults")?
        .as_array()?;
    faults
        .iter()
        .map(|f| {
            let name = f.get("name")?.as_str()?;
            let known = mock_server::fault::Fault::all()
                .iter()
                .find(|k| k.name() == name)?;
            Some(FaultRow {
                name: known.name(),
                on: Some(f.get("on")?.as_bool()?),
                rule: f.get("rule")?.as_str()?.to_owned(),
                spec: f.get("spec")?.as_str()?.to_owned(),
            })
        })
        .collect()
}
