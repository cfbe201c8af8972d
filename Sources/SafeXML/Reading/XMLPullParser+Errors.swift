@preconcurrency import CLibXML2

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

extension XMLPullParser {
    static func tooLarge(size: Int, limits: XMLLimits, fileName: String?) -> XMLError {
        XMLError(
            code: .tooLarge,
            message: "The document has \(size) bytes, more than the limit of \(limits.maxBytes). "
                + "Raise XMLLimits.maxBytes if the document is trusted.",
            fileName: fileName
        )
    }

    /// An error at the parser's current position.
    func error(_ code: XMLError.Code, _ message: String) -> XMLError {
        XMLError(code: code, message: message, fileName: fileName, line: position.line, column: position.column)
    }

    /// Converts what libxml2 reported into an ``XMLError``.
    func makeError() -> XMLError {
        if context.exceededMaxBytes {
            return XMLError(
                code: .tooLarge,
                message: "The document is larger than the limit of \(limits.maxBytes) bytes. "
                    + "Raise XMLLimits.maxBytes if the document is trusted.",
                fileName: fileName
            )
        }
        if context.readErrno != 0 {
            let reason = String(cString: strerror(context.readErrno))
            return XMLError(code: .io, message: "Reading the document failed (\(reason)).", fileName: fileName)
        }
        guard let reported = context.firstFatalError ?? context.firstError else {
            return error(.notWellFormed, "The document is not well-formed XML.")
        }
        var code = Self.code(for: reported)
        if !context.hasSeenStartTag, reported.code == Int32(XML_ERR_DOCUMENT_END.rawValue) {
            code = .emptyDocument  // what libxml2's push parser reports for a document without a root element
        }
        let message: String
        switch code {
        case .tooDeep:
            message = Self.tooDeepMessage(limits)
        case .entityDeclarationForbidden:
            message = Self.entityMessage + " (libxml2: \(reported.message))"
        case .externalEntity:
            message =
                "The document refers to an external resource, which is never loaded (libxml2: "
                + "\(reported.message)). Inline the content instead."
        case .invalidEncoding:
            message =
                "The bytes are not valid in the document's encoding (libxml2: \(reported.message)). "
                + "Save the file as UTF-8 or declare its real encoding in the XML declaration."
        case .emptyDocument:
            message = "The document has no root element. Check that the file is not empty or truncated."
        default:
            message =
                "The document is not well-formed XML: \(reported.message). Check the markup near this "
                + "position; the file may be truncated or corrupt."
        }
        return XMLError(
            code: code,
            message: message,
            fileName: fileName,
            line: reported.line,
            column: reported.column
        )
    }

    private static func code(for reported: ReaderContext.Reported) -> XMLError.Code {
        if reported.domain == Int32(XML_FROM_IO.rawValue) {
            return reported.code == Int32(XML_IO_NETWORK_ATTEMPT.rawValue) ? .externalEntity : .io
        }
        switch UInt32(bitPattern: reported.code) {
        case XML_ERR_DOCUMENT_EMPTY.rawValue:
            return .emptyDocument
        case XML_ERR_INVALID_CHAR.rawValue where reported.message.contains("UTF-8"):
            return .invalidEncoding  // "Input is not proper UTF-8"; other invalid characters are well-formedness
        case XML_ERR_INVALID_ENCODING.rawValue, XML_ERR_UNKNOWN_ENCODING.rawValue,
            XML_ERR_UNSUPPORTED_ENCODING.rawValue, XML_I18N_CONV_FAILED.rawValue:
            return .invalidEncoding
        case XML_ERR_UNDECLARED_ENTITY.rawValue, XML_WAR_UNDECLARED_ENTITY.rawValue,
            XML_ERR_ENTITY_LOOP.rawValue, XML_ERR_UNPARSED_ENTITY.rawValue, XML_ERR_ENTITY_PROCESSING.rawValue:
            return .entityDeclarationForbidden
        case XML_ERR_ENTITY_IS_EXTERNAL.rawValue, XML_ERR_EXT_ENTITY_STANDALONE.rawValue:
            return .externalEntity
        case XML_ERR_INTERNAL_ERROR.rawValue where reported.message.contains("Excessive depth"):
            return .tooDeep
        default:
            return .notWellFormed
        }
    }
}
