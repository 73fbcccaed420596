import LommeCore
import LommeTestSupport
import Testing

/// Shell completions as `lomme-vault --generate-completion-script SHELL` writes them and
/// install.sh / the Debian package install them, asked the way each shell asks.
@Suite("Shell completions")
struct CompletionTests {
    /// The completion script for `shell`, written into `sandbox`.
    static func script(_ shell: String, in sandbox: CLI.Sandbox) -> String {
        let result = CLI.run(["--generate-completion-script", shell])
        #expect(result.status == 0, "\(result.stderr)")
        return sandbox.write("lomme-vault." + shell, result.out, mode: 0o644)
    }

    /// What bash offers for `line` (the cursor at its end), as bash-completion would ask:
    /// COMP_WORDS, COMP_CWORD, COMP_LINE and COMP_POINT set, then the registered function.
    static func bash(_ line: String, sandbox: CLI.Sandbox) -> [String] {
        let ask = #"""
            source "$1" || exit 1
            function=$(complete -p lomme-vault | sed -n 's/.* -F \([^ ]*\) .*/\1/p')
            COMP_LINE="$2"; read -ra COMP_WORDS <<<"$COMP_LINE"
            [[ "$COMP_LINE" == *" " ]] && COMP_WORDS+=("")
            COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMP_POINT=${#COMP_LINE}
            "$function" lomme-vault "${COMP_WORDS[-1]}" "${COMP_WORDS[-2]}"
            printf '%s\n' "${COMPREPLY[@]}"
            """#
        let result = CLI.run(["-c", ask, "bash", script("bash", in: sandbox), line], executable: "/bin/bash")
        #expect(result.status == 0 && result.stderr.isEmpty, "\(result.stderr)")
        return result.out.split(separator: "\n").map(String.init)
    }

    @Test("bash: get completes the config's field names, and command names complete")
    func bashCompletes() {
        let sandbox = CLI.Sandbox()
        #expect(Self.bash("lomme-vault get cli", sandbox: sandbox) == ["clientId", "clientSecret"])
        #expect(Self.bash("lomme-vault get tok", sandbox: sandbox) == ["tokenUrl"])
        #expect(Self.bash("lomme-vault get ", sandbox: sandbox).filter { !$0.hasPrefix("-") } == Config.knownFieldNames)
        #expect(Self.bash("lomme-vault imp", sandbox: sandbox) == ["import"])
        #expect(Self.bash("lomme-vault chi", sandbox: sandbox) == ["child"])
        #expect(Self.bash("lomme-vault child re", sandbox: sandbox) == ["rekey", "remove"])
        #expect(Self.bash("lomme-vault issue --output-d", sandbox: sandbox) == ["--output-dir"])
    }

    @Test("fish: the script loads and completes field and command names")
    func fishCompletes() {
        let sandbox = CLI.Sandbox()
        let file = Self.script("fish", in: sandbox)
        let ask = #"source "$argv[1]"; and complete -C"lomme-vault get cli"; and complete -C"lomme-vault imp""#
        let result = CLI.run(["-c", ask, file], executable: "/usr/bin/fish")
        #expect(result.status == 0 && result.stderr.isEmpty, "\(result.stderr)")
        let offered = result.out.split(separator: "\n").map { String($0.prefix(while: { $0 != "\t" })) }
        #expect(offered == ["clientId", "clientSecret", "import"])
    }

    @Test("zsh: the script loads under compinit and registers _lomme-vault for lomme-vault")
    func zshLoads() {
        let sandbox = CLI.Sandbox()
        let file = Self.script("zsh", in: sandbox)
        let ask = #"autoload -U compinit && compinit -u -d "$2/zcompdump" && source "$1" && print -r -- "$_comps[lomme-vault]""#
        let result = CLI.run(["-c", ask, "zsh", file, sandbox.path], executable: "/usr/bin/zsh")
        #expect(result.status == 0 && result.stderr.isEmpty, "\(result.stderr)")
        #expect(result.out == "_lomme-vault\n")
    }
}
