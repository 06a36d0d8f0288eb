//! Go to definition: from a function's or an entity type's name to where it is defined,
//! and from an advice file's path (`is "laws/x.law"`) to that file.

use super::{Analysis, FilePosition, entities, functions, word_at};
use crate::source::Span;
use crate::syntax::ast::{AdviceBody, Item};

/// Where what is at `at` is defined (the start of a file for an advice file's path).
pub fn definition(analysis: &Analysis, at: FilePosition) -> Option<Span> {
    let program = analysis.program.as_ref()?;
    let FilePosition { file: id, offset } = at;
    // An advice file's path (`is "laws/x.law"`): that file.
    for item in &program.items {
        if let Item::Advice(a) = item
            && let AdviceBody::File {
                path,
                file: Some(target),
                ..
            } = &a.body
            && path.span.file == id
            && (path.span.start as usize..=path.span.end as usize).contains(&offset)
        {
            return Some(Span::new(*target, 0..0));
        }
    }
    let file = analysis.sources.file(id);
    let (word, _) = word_at(&file.text, offset)?;
    if let Some(f) = functions(analysis).find(|f| f.name.sym.as_str() == word) {
        return Some(f.name.span);
    }
    if let Some(e) = entities(analysis).find(|e| e.name.sym.as_str() == word) {
        return Some(e.name.span);
    }
    None
}
