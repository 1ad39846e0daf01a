//! Choosing and starting what the lab talks to: the bundled server (started in this process,
//! reached only over real HTTP like any other),
//! any server by URL, or a `mcp-tutor serve --stdio` child. The wire and the [`Link`] over it
//! are the client library's (`crate::client::link`); this module only picks one.

use std::path::Path;
use std::str::FromStr;

use anyhow::Context;
use mock_server::Fault;

use super::Args;
use super::scenario::{ScenarioFile, Transport};
use crate::client::HttpClient;
use crate::client::link::{FRAMES_PER_SECOND, HttpLink, Link, Pace, StdioLink, Tx};

/// The lab shows every frame to a person: at most this many a second per stream.
const PACE: Pace = Pace::Show(FRAMES_PER_SECOND);

#[derive(Debug, Clone)]
pub enum Endpoint {
    Bundled { faults: Vec<String> },
    Url(String),
    Stdio { faults: Vec<String> },
}

impl Endpoint {
    pub fn from_args(a: &Args) -> Self {
        if let Some(u) = &a.url {
            Endpoint::Url(u.clone())
        } else if a.stdio {
            Endpoint::Stdio {
                faults: a.faults.clone(),
            }
        } else {
            Endpoint::Bundled {
                faults: a.faults.clone(),
            }
        }
    }

    /// A scenario decides its transport and faults; the command line adds faults.
    pub fn for_scenario(a: &Args, sc: &ScenarioFile) -> Self {
        let mut faults = sc.scenario.faults.clone();
        faults.extend(a.faults.iter().cloned());
        match sc.scenario.transport {
            Transport::Http => Endpoint::Bundled { faults },
            Transport::Stdio => Endpoint::Stdio { faults },
        }
    }
}

pub struct Connection {
    pub link: Box<dyn Link>,
    /// Whatever must stay alive while the lab runs (the in-process server).
    pub keep: Option<Box<dyn std::any::Any + Send>>,
    pub fault_names: Vec<String>,
    pub uris: Vec<String>,
}

fn parse_faults(names: &[String]) -> anyhow::Result<Vec<Fault>> {
    names
        .iter()
        .map(|n| Fault::from_str(n).map_err(|e| anyhow::anyhow!("{e}")))
        .collect()
}

pub async fn connect(target: &Endpoint, tx: Tx) -> anyhow::Result<Connection> {
    let fault_names: Vec<String> = Fault::all().iter().map(|f| f.name().to_owned()).collect();
    let uris: Vec<String> = mock_server::resource_uris()
        .into_iter()
        .map(str::to_owned)
        .collect();
    match target {
        Endpoint::Bundled { faults } => {
            let config = mock_server::Config {
                faults: parse_faults(faults)?,
                ..mock_server::Config::default()
            };
            let server = mock_server::start_http(config)
                .await
                .context("cannot start the bundled mock server")?;
            // Only the URL is kept: the lab drives this server over HTTP like any other.
            let link = HttpLink::new(
                HttpClient::new(&server.url)?,
                "the bundled mock server",
                PACE,
            );
            Ok(Connection {
                link: Box::new(link),
                keep: Some(Box::new(server)),
                fault_names,
                uris,
            })
        }
        Endpoint::Url(url) => Ok(Connection {
            link: Box::new(HttpLink::new(HttpClient::new(url)?, url, PACE)),
            keep: None,
            fault_names,
            uris,
        }),
        Endpoint::Stdio { faults } => {
            parse_faults(faults)?;
            let exe = std::env::current_exe().context("cannot find the mcp-tutor binary")?;
            let mut args = vec!["serve".to_owned(), "--stdio".to_owned()];
            for f in faults {
                args.push("--fault".to_owned());
                args.push(f.clone());
            }
            let shown = if faults.is_empty() {
                "mcp-tutor serve --stdio".to_owned()
            } else {
                format!(
                    "mcp-tutor serve --stdio --fault {}",
                    faults.join(" --fault ")
                )
            };
            let link = StdioLink::spawn(exe, args, shown, tx, PACE)?;
            Ok(Connection {
                link: Box::new(link),
                keep: None,
                fault_names,
                uris,
            })
        }
    }
}

/// A wrong prediction becomes a lapse of the linked card in the quiz's store, so the quiz
/// brings that card back.
pub fn record_lapse(data_dir: &Path, card: &str, source: &str) -> anyhow::Result<()> {
    crate::store::Store::open(data_dir)?.record_lapse(card, source)
}
