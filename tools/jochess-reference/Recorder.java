// Records random games played by joChess's own rule engine, as agreement cases for
// games/jochess (tests/jochess_recorded.rs). This program is ours; joChess's classes are
// compiled from a checkout given to record.sh and are never copied here. See README.md.
//
// Usage: java Recorder <boards dir> <games per board> <plies per game> <output file>

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

import javax.swing.JFrame;

import jchess.common.IBoardActivity;
import jchess.common.IBoardAgent;
import jchess.common.IMoveCandidate;
import jchess.common.IPieceAgent;
import jchess.common.IPlayerAgent;
import jchess.common.IPositionAgent;
import jchess.common.IRuleAgent;
import jchess.common.enumerator.RuleType;
import jchess.common.gui.IPresenter;
import jchess.gamelogic.BoardActivity;
import jchess.gamelogic.BoardAgentFactory;
import jchess.gui.IGUIHandle;
import jchess.ruleengine.IRuleEngine;
import jchess.ruleengine.IRuleProcessor;
import jchess.ruleengine.gui.PawnPromotionModel;
import jchess.service.StorageService;
import jchess.service.StorageType;
import jchess.util.IAppLogger;
import jchess.util.LogLevel;

public final class Recorder {
    static final String[] BOARDS = {"2PlayerBoard", "3PlayerBoard", "3PlayerBoard_II"};
    static final String PROMOTION = "MOVE_AND_CAPTURE[PAWN_PROMOTION]";

    /** joChess's logger interface, silenced (its own AppLogger needs log4j). */
    static final class Quiet implements IAppLogger {
        public void writeLog(LogLevel l, Exception e, String m, String c) {}
        public void writeLog(LogLevel l, String s, String m, String c) {}
        public void writeLog(LogLevel l, String s) {}
    }

    /** No windows: a promotion is carried out by the recorder (see promote). */
    static final class NoGui implements IGUIHandle {
        public JFrame getGUIMainFrame() { return null; }
        public void showDialog(IPresenter p) {
            throw new UnsupportedOperationException("no dialogs while recording");
        }
    }

    /** A candidate's label as games/jochess names it: a CUSTOM rule's custom name, else its name. */
    static String label(IRuleAgent r) {
        return r.getRuleType() == RuleType.CUSTOM ? r.getCustomName() : r.getName();
    }

    public static void main(String[] args) throws Exception {
        String dir = args[0];
        int games = Integer.parseInt(args[1]);
        int plies = Integer.parseInt(args[2]);
        try (PrintWriter out = new PrintWriter(args[3], "UTF-8")) {
            out.println("# Random games played by joChess's own rule engine (github SajadKarim/joChess at");
            out.println("# commit a55a2f6), recorded by tools/jochess-reference/Recorder.java: " + games
                    + " games per board,");
            out.println("# at most " + plies + " plies each. Format: docs/jochess.md, section 5.");
            for (String board : BOARDS) {
                for (int seed = 1; seed <= games; seed++) {
                    play(out, dir, board, seed, plies);
                }
            }
        }
    }

    static void play(PrintWriter out, String dir, String board, int seed, int plies) throws Exception {
        IAppLogger log = new Quiet();
        IBoardAgent b = (IBoardAgent) StorageService.create(StorageType.FBDB, log)
                .getBoard(new BoardAgentFactory(), dir + "/" + board + ".xml");
        if (b == null) throw new IllegalStateException("joChess could not read " + board);
        // As GameWndModule.provideRuleEngine: the classes the board names, by reflection.
        IRuleProcessor proc = (IRuleProcessor) Class.forName("jchess.ruleengine." + b.getRuleProcessorName())
                .getConstructor(IAppLogger.class).newInstance(log);
        IRuleEngine eng = (IRuleEngine) Class.forName("jchess.ruleengine." + b.getRuleEngineName())
                .getConstructor(IRuleProcessor.class, IGUIHandle.class, IAppLogger.class)
                .newInstance(proc, new NoGui(), log);
        // As GameState: the players in the iteration order of the board's player map.
        List<IPlayerAgent> seats = new ArrayList<>(b.getAllPlayerAgents().values());
        Random rnd = new Random(seed);
        out.println();
        out.println("case recorded." + board + ".seed" + seed);
        out.println("board " + board);
        out.println("start");
        for (int ply = 0; ; ply++) {
            if (ply == plies) {
                out.println("ending none plies " + plies);
                return;
            }
            IPlayerAgent player = seats.get(ply % seats.size());
            String stage = "the stalemate test";
            try {
                out.println("turn " + player.getName());
                // Game.onBoardActivity: the stalemate test of the player to move, a draw.
                if (eng.checkStalemate(b, player)) {
                    out.println("ending draw stalemate");
                    return;
                }
                // Every piece of the player to move (what a click may select), by square.
                stage = "the candidates";
                TreeMap<String, List<String>> moves = new TreeMap<>();
                for (Map.Entry<String, IPositionAgent> e : new TreeMap<>(b.getAllPositionAgents()).entrySet()) {
                    IPieceAgent p = e.getValue().getPiece();
                    if (p == null || !p.getPlayer().getName().equals(player.getName())) continue;
                    stage = "the candidates of " + e.getKey();
                    List<String> targets = new ArrayList<>(new TreeMap<>(eng.tryEvaluateAllRules(b, p)).keySet());
                    out.println("ask candidates " + e.getKey());
                    out.println(targets.isEmpty() ? "expect none" : "expect " + String.join(" ", targets));
                    if (!targets.isEmpty()) moves.put(e.getKey(), targets);
                }
                if (moves.isEmpty()) {
                    out.println("ending draw no-candidates");
                    return;
                }
                List<String> from = new ArrayList<>(moves.keySet());
                String sq = from.get(rnd.nextInt(from.size()));
                List<String> targets = moves.get(sq);
                String to = targets.get(rnd.nextInt(targets.size()));
                // The click on the piece evaluates its candidates afresh; the click on the target
                // executes that candidate.
                stage = "the move " + sq + " " + to;
                IPieceAgent piece = b.getPositionAgent(sq).getPiece();
                IMoveCandidate mc = eng.tryEvaluateAllRules(b, piece).get(to);
                String lab = label(mc.getRule());
                IBoardActivity act;
                if (PROMOTION.equals(lab)) {
                    String type = "Queen" + piece.getFamily();
                    out.println("play " + sq + " " + to + " " + lab + " " + type);
                    act = promote(b, mc, type);
                } else {
                    out.println("play " + sq + " " + to + " " + lab);
                    act = eng.tryExecuteRule(b, mc);
                }
                if (act == null) {
                    out.println("# joChess's engine refused the move");
                    out.println("ending cut refused");
                    return;
                }
                b.addActivity(act);
                // Game.tryExecuteRule: the mover's king attacked after the move loses; the
                // first attacking player found wins.
                stage = "the test of the mover's king";
                IPlayerAgent rival = eng.tryCheckIfPlayerEndengered(b, player);
                if (rival != null) {
                    out.println("ending winner " + rival.getName() + " king-left-attacked");
                    return;
                }
            } catch (Throwable t) {
                String what = t.getClass().getSimpleName();
                out.println("# joChess fails in " + stage + ": " + t);
                out.println("ending cut " + what);
                return;
            }
        }
    }

    /**
     * A promotion as PawnRulesProcessor.tryExecutePawnPromotionRule carries it out once its
     * dialog has answered, the answer being the queen of the pawn's family (the dialog
     * offers it among the pieces PawnPromotionModel lists): the pawn leaves the board, a
     * copy of the chosen piece joins the pawn's player on the pawn's square and moves to the
     * target, taking what stands there.
     */
    static IBoardActivity promote(IBoardAgent b, IMoveCandidate mc, String type) {
        IPositionAgent src = mc.getSourcePosition();
        IPositionAgent dst = mc.getCandidatePosition();
        IPieceAgent pawn = src.getPiece();
        IPieceAgent chosen = null;
        for (IPieceAgent offered : new PawnPromotionModel(b.getAllUnlinkedPieceAgents(), pawn).getViewData()) {
            if (offered.getName().equals(type)) chosen = offered;
        }
        if (chosen == null) throw new IllegalStateException("the promotion dialog does not offer " + type);
        IPlayerAgent player = pawn.getPlayer();
        pawn.setPosition(null);
        IPieceAgent piece = (IPieceAgent) chosen.clone();
        piece.setPlayer(player);
        src.setPiece(piece);
        IPieceAgent taken = dst.getPiece();
        BoardActivity act = new BoardActivity(mc);
        dst.setPiece(piece);
        src.setPiece(null);
        piece.setPosition(dst);
        piece.enqueuePositionHistory(src);
        if (taken != null) taken.setPosition(null);
        act.addPriorMoveEntry(src, piece);
        act.addPriorMoveEntry(dst, taken);
        act.addPostMoveEntry(src, null);
        act.addPostMoveEntry(dst, piece);
        act.setPlayer(player);
        return act;
    }
}
