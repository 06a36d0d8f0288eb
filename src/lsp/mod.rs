//! `flexrules lsp`: a language server (the Language Server Protocol, over standard input
//! and output) for editors: the checker's diagnostics as the designer types, the usage
//! of a builtin or the comment and parameters of a `#define` on hover, go to the
//! definition of a function, an entity type or an advice file, completion of names, and
//! the outline of a document.
//!
//! This module holds the entry points and the server loop, which reads the client's
//! requests and notifications and answers them. The open documents and the *unit* each
//! is checked with (see [`GAME_LEVELS`]) are in `documents`; the features, which know
//! nothing of the protocol, in `features`; the conversion between the two (positions in
//! UTF-16 units, the protocol's types) in `convert`; reading and writing frames on
//! standard input and output, within bounds, in `frames`.

mod convert;
mod documents;
mod features;
pub mod frames;

use lsp_server::{Connection, Message, Notification, Request, Response};
use lsp_types::notification::Notification as _;
use lsp_types::request::Request as _;
use lsp_types::{
    CompletionResponse, Location, ServerCapabilities, TextDocumentSyncCapability,
    TextDocumentSyncKind, Url,
};

use documents::Documents;
pub use documents::GAME_LEVELS;
use features::{Analysis, FilePosition};

/// An error that ends the server (the connection broke, or the client broke the protocol).
pub type ServerError = Box<dyn std::error::Error + Send + Sync>;

/// Serve on standard input and output until the client says `exit` or the stream ends
/// (see [`frames`] for what is refused on the way).
pub fn run_stdio() -> Result<(), ServerError> {
    frames::run(serve)
}

/// Serve on `connection` until the client says `exit` (after `shutdown`).
pub fn serve(connection: Connection) -> Result<(), ServerError> {
    let capabilities = ServerCapabilities {
        text_document_sync: Some(TextDocumentSyncCapability::Kind(TextDocumentSyncKind::FULL)),
        hover_provider: Some(lsp_types::HoverProviderCapability::Simple(true)),
        definition_provider: Some(lsp_types::OneOf::Left(true)),
        completion_provider: Some(lsp_types::CompletionOptions::default()),
        document_symbol_provider: Some(lsp_types::OneOf::Left(true)),
        ..ServerCapabilities::default()
    };
    connection.initialize(serde_json::to_value(capabilities)?)?;
    let mut server = Server::default();
    for message in &connection.receiver {
        match message {
            Message::Request(request) => {
                if connection.handle_shutdown(&request)? {
                    return Ok(());
                }
                let response = server.request(request);
                connection.sender.send(Message::Response(response))?;
            }
            Message::Notification(n) => {
                for published in server.notification(n) {
                    connection.sender.send(Message::Notification(published))?;
                }
            }
            Message::Response(_) => {}
        }
    }
    Ok(())
}

/// What the server knows: the open documents and what their units last gave.
#[derive(Default)]
struct Server {
    documents: Documents,
}

impl Server {
    /// A document opened, changed, saved or closed: the diagnostics to publish.
    fn notification(&mut self, n: Notification) -> Vec<Notification> {
        use convert::path_of;
        use lsp_types::notification::{
            DidChangeTextDocument, DidCloseTextDocument, DidOpenTextDocument, DidSaveTextDocument,
        };
        use lsp_types::{
            DidChangeTextDocumentParams, DidCloseTextDocumentParams, DidOpenTextDocumentParams,
            DidSaveTextDocumentParams,
        };
        let changed = match n.method.as_str() {
            DidOpenTextDocument::METHOD => params::<DidOpenTextDocumentParams>(n).and_then(|p| {
                let path = path_of(&p.text_document.uri)?;
                self.documents.set_text(path.clone(), p.text_document.text);
                Some(path)
            }),
            DidChangeTextDocument::METHOD => {
                params::<DidChangeTextDocumentParams>(n).and_then(|p| {
                    let path = path_of(&p.text_document.uri)?;
                    // Whole texts only (the sync kind the server asked for): the last one.
                    if let Some(change) = p.content_changes.into_iter().last() {
                        self.documents.set_text(path.clone(), change.text);
                    }
                    Some(path)
                })
            }
            DidSaveTextDocument::METHOD => {
                params::<DidSaveTextDocumentParams>(n).and_then(|p| path_of(&p.text_document.uri))
            }
            DidCloseTextDocument::METHOD => {
                if let Some(path) = params::<DidCloseTextDocumentParams>(n)
                    .and_then(|p| path_of(&p.text_document.uri))
                {
                    self.documents.close(&path);
                }
                None
            }
            _ => None,
        };
        changed.map(|path| self.check(&path)).unwrap_or_default()
    }

    /// Check the unit of the document at `path`; the diagnostics to publish.
    fn check(&mut self, path: &std::path::Path) -> Vec<Notification> {
        let (sources, by_file) = self.documents.check(path);
        by_file
            .into_iter()
            .filter_map(|(p, diagnostics)| {
                let params = convert::publish_diagnostics(sources, &p, &diagnostics)?;
                Some(Notification::new(
                    lsp_types::notification::PublishDiagnostics::METHOD.to_string(),
                    params,
                ))
            })
            .collect()
    }

    fn request(&mut self, request: Request) -> Response {
        use lsp_types::request::{Completion, DocumentSymbolRequest, GotoDefinition, HoverRequest};
        let id = request.id.clone();
        let result = match request.method.as_str() {
            HoverRequest::METHOD => {
                serde_json::from_value::<lsp_types::HoverParams>(request.params)
                    .ok()
                    .map(|p| serde_json::to_value(self.hover(&p.text_document_position_params)))
            }
            GotoDefinition::METHOD => {
                serde_json::from_value::<lsp_types::GotoDefinitionParams>(request.params)
                    .ok()
                    .map(|p| {
                        serde_json::to_value(self.definition(&p.text_document_position_params))
                    })
            }
            DocumentSymbolRequest::METHOD => {
                serde_json::from_value::<lsp_types::DocumentSymbolParams>(request.params)
                    .ok()
                    .map(|p| serde_json::to_value(self.outline(&p.text_document.uri)))
            }
            Completion::METHOD => {
                serde_json::from_value::<lsp_types::CompletionParams>(request.params)
                    .ok()
                    .map(|p| serde_json::to_value(self.completion(&p.text_document_position)))
            }
            _ => {
                return Response::new_err(
                    id,
                    lsp_server::ErrorCode::MethodNotFound as i32,
                    format!("flexrules lsp does not answer {}", request.method),
                );
            }
        };
        match result {
            Some(Ok(value)) => Response::new_ok(id, value),
            _ => Response::new_err(
                id,
                lsp_server::ErrorCode::InvalidParams as i32,
                "the parameters do not fit the request".into(),
            ),
        }
    }

    /// The analysis of the document at `at`, and where `at` is in the file the analysis
    /// loaded for it.
    fn place(
        &self,
        at: &lsp_types::TextDocumentPositionParams,
    ) -> Option<(&Analysis, FilePosition)> {
        let path = convert::path_of(&at.text_document.uri)?;
        let (analysis, file) = self.documents.find(&path)?;
        let offset = convert::offset_of(&analysis.sources.file(file).text, at.position);
        Some((analysis, FilePosition { file, offset }))
    }

    fn hover(&self, at: &lsp_types::TextDocumentPositionParams) -> Option<lsp_types::Hover> {
        let (analysis, at) = self.place(at)?;
        let found = features::hover::hover(analysis, at)?;
        Some(convert::hover(&analysis.sources, found))
    }

    fn definition(&self, at: &lsp_types::TextDocumentPositionParams) -> Option<Location> {
        let (analysis, at) = self.place(at)?;
        let span = features::definition::definition(analysis, at)?;
        convert::location(&analysis.sources, span)
    }

    fn outline(&self, uri: &Url) -> Option<lsp_types::DocumentSymbolResponse> {
        let path = convert::path_of(uri)?;
        let (analysis, id) = self.documents.find(&path)?;
        let file = analysis.sources.file(id);
        let symbols = features::outline::outline(analysis, id)
            .into_iter()
            .map(|item| convert::document_symbol(file, item))
            .collect();
        Some(lsp_types::DocumentSymbolResponse::Nested(symbols))
    }

    fn completion(&self, at: &lsp_types::TextDocumentPositionParams) -> Option<CompletionResponse> {
        let analysis = self.place(at).map(|(analysis, _)| analysis);
        let items = features::completion::completions(analysis)
            .into_iter()
            .map(convert::completion_item)
            .collect();
        Some(CompletionResponse::Array(items))
    }
}

/// The parameters of a notification, when they are what its method says.
fn params<P: serde::de::DeserializeOwned>(n: Notification) -> Option<P> {
    serde_json::from_value(n.params).ok()
}
