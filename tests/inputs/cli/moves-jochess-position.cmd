# A single cannon on the hexagon board, as joChess's own test places it: its targets.
flexrules moves games/jochess --param board=../shared/jochess/3PlayerBoard.xml --param position=a2:CannonWhiteL --param turn=P1
