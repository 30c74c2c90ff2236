//! Log and trace output of the process (the shell installs it once): daily log files in the
//! state directory, optional stderr, `pretty` or `json` lines, and, in builds with the `otlp`
//! feature, an OpenTelemetry exporter sending the spans to an OTLP/HTTP collector.

use std::path::PathBuf;

use config::{LogFormat, LogLevel, PipelineConfig};
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::{EnvFilter, Layer, Registry};

use crate::{AuditError, Result};

/// Environment variable with a filter that overrides `log_level` (`info,sandbox=trace`).
pub const ENV_LOG_FILTER: &str = "SCOPE_WEAVER_LOG";
/// The log file name: `scope-weaver.<date>.log`.
pub const LOG_FILE_PREFIX: &str = "scope-weaver";
/// How many daily log files are kept.
pub const LOG_FILES_KEPT: usize = 14;
/// Our crates: the level applies to them; dependencies only report warnings.
const OUR_TARGETS: &[&str] = &[
    "pipeline",
    "thinker",
    "sandbox",
    "retrieval",
    "skills",
    "audit",
    "config",
    "contracts",
    "cli",
    "scope_weaver",
    "scope_weaver_app",
];

/// Where logs and traces go.
#[derive(Debug, Clone)]
pub struct LogSettings {
    pub format: LogFormat,
    pub level: LogLevel,
    /// Folder of the daily log files; `None` writes no file.
    pub dir: Option<PathBuf>,
    /// Also write to stderr.
    pub stderr: bool,
    /// OTLP/HTTP collector for the spans (builds with the `otlp` feature).
    pub otlp_endpoint: Option<String>,
    /// `service.name` of the exported spans.
    pub service: String,
}

impl LogSettings {
    /// The settings of `config`: files in `<state_dir>/logs`, stderr off.
    pub fn from_config(config: &PipelineConfig, service: &str) -> LogSettings {
        LogSettings {
            format: config.log_format,
            level: config.log_level,
            dir: Some(config.state_dir().join("logs")),
            stderr: false,
            otlp_endpoint: config.otlp_endpoint.clone(),
            service: service.to_owned(),
        }
    }

    /// The filter: `SCOPE_WEAVER_LOG` if set, else `log_level` for our crates and warnings from
    /// everything else.
    pub fn filter(&self) -> Result<EnvFilter> {
        let directives = match std::env::var(ENV_LOG_FILTER) {
            Ok(v) if !v.trim().is_empty() => v,
            _ => {
                let level = self.level.as_str();
                let ours: Vec<String> =
                    OUR_TARGETS.iter().map(|t| format!("{t}={level}")).collect();
                format!("warn,{}", ours.join(","))
            }
        };
        EnvFilter::try_new(&directives).map_err(|e| {
            AuditError::Telemetry(format!(
                "{ENV_LOG_FILTER}=`{directives}` is not a filter: {e}"
            ))
        })
    }
}

/// Keeps the exporter alive; dropping it flushes the spans not yet sent.
pub struct Telemetry {
    /// The log file folder, if any.
    pub dir: Option<PathBuf>,
    #[cfg(feature = "otlp")]
    provider: Option<opentelemetry_sdk::trace::SdkTracerProvider>,
}

impl std::fmt::Debug for Telemetry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Telemetry")
            .field("dir", &self.dir)
            .finish_non_exhaustive()
    }
}

impl Drop for Telemetry {
    fn drop(&mut self) {
        #[cfg(feature = "otlp")]
        if let Some(p) = self.provider.take()
            && let Err(e) = p.shutdown()
        {
            eprintln!("warning: the OpenTelemetry exporter did not flush: {e}");
        }
    }
}

type BoxedLayer = Box<dyn Layer<Registry> + Send + Sync>;

fn fmt_layer<W>(format: LogFormat, writer: W, ansi: bool) -> BoxedLayer
where
    W: for<'w> tracing_subscriber::fmt::MakeWriter<'w> + Send + Sync + 'static,
{
    match format {
        LogFormat::Json => tracing_subscriber::fmt::layer()
            .json()
            .with_current_span(true)
            .with_span_list(true)
            .with_writer(writer)
            .boxed(),
        LogFormat::Pretty => tracing_subscriber::fmt::layer()
            .with_ansi(ansi)
            .with_writer(writer)
            .boxed(),
    }
}

/// Installs the process's global subscriber. Fails if the log folder cannot be created, the
/// filter is invalid, an exporter is asked for in a build without `otlp`, or a subscriber is
/// already installed.
pub fn init_telemetry(settings: &LogSettings) -> Result<Telemetry> {
    let filter = settings.filter()?;
    let mut layers: Vec<BoxedLayer> = Vec::new();
    if let Some(dir) = &settings.dir {
        std::fs::create_dir_all(dir).map_err(|e| {
            AuditError::Telemetry(format!("creating the log folder {}: {e}", dir.display()))
        })?;
        let appender = tracing_appender::rolling::RollingFileAppender::builder()
            .rotation(tracing_appender::rolling::Rotation::DAILY)
            .filename_prefix(LOG_FILE_PREFIX)
            .filename_suffix("log")
            .max_log_files(LOG_FILES_KEPT)
            .build(dir)
            .map_err(|e| {
                AuditError::Telemetry(format!("opening a log file in {}: {e}", dir.display()))
            })?;
        layers.push(fmt_layer(settings.format, appender, false));
    }
    if settings.stderr {
        let ansi = std::io::IsTerminal::is_terminal(&std::io::stderr());
        layers.push(fmt_layer(settings.format, std::io::stderr, ansi));
    }
    #[cfg(feature = "otlp")]
    let provider = match &settings.otlp_endpoint {
        Some(endpoint) => {
            let (provider, layer) = crate::otlp::exporter(endpoint, &settings.service)?;
            layers.push(layer);
            Some(provider)
        }
        None => None,
    };
    #[cfg(not(feature = "otlp"))]
    if let Some(endpoint) = &settings.otlp_endpoint {
        return Err(AuditError::Telemetry(format!(
            "otlp_endpoint is {endpoint}, but this build has no OpenTelemetry exporter \
             (build with `--features otlp`, or set otlp_endpoint: null)"
        )));
    }
    tracing_subscriber::registry()
        .with(layers)
        .with(filter)
        .try_init()
        .map_err(|e| AuditError::Telemetry(format!("installing the log subscriber: {e}")))?;
    Ok(Telemetry {
        dir: settings.dir.clone(),
        #[cfg(feature = "otlp")]
        provider,
    })
}

/// The log files in `dir`, oldest first.
pub fn log_files(dir: &std::path::Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with(LOG_FILE_PREFIX) && n.ends_with(".log"))
        })
        .collect();
    files.sort();
    files
}
