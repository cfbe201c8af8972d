import Foundation
import ModelCodegen

/// `objectgraph-codegen MODEL --output FILE [--config FILE] [--all-entities] [--access-level LEVEL]`: writes the
/// typed classes of an Xcode model file (what the `ObjectGraphCodegen` plugin runs for each model of a target).
/// Exits 1 with `MODEL: error: …` on standard error when the model cannot be read or its names cannot be generated.
@main
enum CodegenCommand {
    static func main() {
        var arguments = Array(CommandLine.arguments.dropFirst())
        var model: String?
        var output: String?
        var options = CodegenOptions()
        do {
            while !arguments.isEmpty {
                let argument = arguments.removeFirst()
                switch argument {
                case "--output": output = try value(of: argument, from: &arguments)
                case "--config":
                    let path = try value(of: argument, from: &arguments)
                    do {
                        options = try JSONDecoder().decode(
                            CodegenOptions.self, from: Data(contentsOf: URL(filePath: path)))
                    } catch {
                        throw CodegenError(file: path, message: "not a valid configuration: \(error)")
                    }
                case "--all-entities": options.entities = .all
                case "--access-level":
                    let level = try value(of: argument, from: &arguments)
                    guard let parsed = CodegenOptions.AccessLevel(rawValue: level) else {
                        throw usage("unknown access level \(level)")
                    }
                    options.accessLevel = parsed
                default:
                    guard model == nil, !argument.hasPrefix("-") else { throw usage("unexpected \(argument)") }
                    model = argument
                }
            }
            guard let model, let output else { throw usage("a model and --output are required") }
            let source = try ClassGenerator(contentsOf: URL(filePath: model), options: options).source()
            let url = URL(filePath: output)
            // Rewritten only when it changed, so that an unchanged model recompiles nothing.
            if (try? Data(contentsOf: url)) != Data(source.utf8) {
                do {
                    try Data(source.utf8).write(to: url, options: .atomic)
                } catch {
                    throw CodegenError(file: output, message: "cannot write the generated source: \(error)")
                }
            }
        } catch {
            FileHandle.standardError.write(Data("\(error)\n".utf8))
            exit(1)
        }
    }

    private static func value(of option: String, from arguments: inout [String]) throws -> String {
        guard !arguments.isEmpty else { throw usage("\(option) needs a value") }
        return arguments.removeFirst()
    }

    private static func usage(_ problem: String) -> CodegenError {
        CodegenError(
            file: "objectgraph-codegen",
            message: "\(problem)\nusage: objectgraph-codegen MODEL --output FILE [--config FILE] [--all-entities] "
                + "[--access-level public|package|internal]")
    }
}
