import AlmanacWire

/// The small syntaxes of the client's arguments, parsed into wire values.
enum ArgumentSyntax {
    /// `NAME=VALUE` (a string) or `NAME:=JSON` (any JSON value: numbers, true, null, lists).
    static func assignment(_ text: String) throws(ClientError) -> (name: String, value: JSONValue) {
        if let range = text.range(of: ":="), range.lowerBound != text.startIndex {
            let name = String(text[..<range.lowerBound])
            let json = String(text[range.upperBound...])
            do {
                return (name, try JSONValue(parsing: json))
            } catch {
                throw .usage("\(name):= needs a JSON value, not \(json) (\(error.message))")
            }
        }
        guard let equals = text.firstIndex(of: "="), equals != text.startIndex else {
            throw .usage("expected NAME=VALUE or NAME:=JSON, not \(text)")
        }
        return (String(text[..<equals]), .string(String(text[text.index(after: equals)...])))
    }

    /// Several assignments as an object, later names replacing earlier ones.
    static func assignments(_ texts: [String]) throws(ClientError) -> JSONObject {
        var object = JSONObject()
        for text in texts {
            let (name, value) = try assignment(text)
            object[name] = value
        }
        return object
    }

    /// `start,-title,room.name/i`: `-` sorts descending, `/i` compares case-insensitively, `/l` like Finder.
    static func sortKeys(_ text: String) throws(ClientError) -> [WireRequest.SortKey] {
        var keys: [WireRequest.SortKey] = []
        for part in text.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !part.isEmpty {
            var key = Substring(part)
            var ascending = true
            if key.hasPrefix("-") {
                ascending = false
                key = key.dropFirst()
            } else if key.hasPrefix("+") {
                key = key.dropFirst()
            }
            var comparison = WireRequest.SortKey.Comparison.compare
            if let slash = key.lastIndex(of: "/") {
                switch key[key.index(after: slash)...] {
                case "i": comparison = .caseInsensitive
                case "l": comparison = .localizedStandard
                default: throw .usage("unknown sort modifier in \(part); use /i or /l")
                }
                key = key[..<slash]
            }
            guard !key.isEmpty else { throw .usage("empty sort key in \(text)") }
            keys.append(.init(key: String(key), ascending: ascending, comparison: comparison))
        }
        return keys
    }

    /// `a,b,room.name`.
    static func fields(_ text: String) -> [String] {
        text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }
}

import Foundation
