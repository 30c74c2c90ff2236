//! The OpenTelemetry exporter (feature `otlp`): the pipeline's spans sent over OTLP/HTTP
//! (protobuf) to a collector, batched on the SDK's own thread.

use opentelemetry::trace::TracerProvider as _;
use opentelemetry_otlp::{Protocol, SpanExporter, WithExportConfig};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::trace::SdkTracerProvider;
use tracing_subscriber::{Layer, Registry};

use crate::{AuditError, Result};

/// The traces URL of a collector: `http://host:4318` → `http://host:4318/v1/traces`.
pub(crate) fn traces_url(endpoint: &str) -> String {
    let base = endpoint.trim_end_matches('/');
    if base.ends_with("/v1/traces") {
        base.to_owned()
    } else {
        format!("{base}/v1/traces")
    }
}

/// The tracer provider (flushes on shutdown) and the layer feeding it.
pub(crate) fn exporter(
    endpoint: &str,
    service: &str,
) -> Result<(SdkTracerProvider, Box<dyn Layer<Registry> + Send + Sync>)> {
    let exporter = SpanExporter::builder()
        .with_http()
        .with_protocol(Protocol::HttpBinary)
        .with_endpoint(traces_url(endpoint))
        .build()
        .map_err(|e| AuditError::Telemetry(format!("the OTLP exporter for {endpoint}: {e}")))?;
    let provider = SdkTracerProvider::builder()
        .with_batch_exporter(exporter)
        .with_resource(
            Resource::builder()
                .with_service_name(service.to_owned())
                .build(),
        )
        .build();
    let tracer = provider.tracer("scope-weaver");
    let layer = tracing_opentelemetry::layer().with_tracer(tracer).boxed();
    Ok((provider, layer))
}
